"""The HTTP API (API Gateway v2): every route to the HTTP function, each request's bearer token
verified by a JWT authorizer first, so the function reads the claims API Gateway passes on
(`requestContext.authorizer.jwt.claims`, see entrypoints/http/identity.py)."""

from __future__ import annotations

from typing import Any

from adapters.aws.stack.access import HTTP_API
from adapters.aws.stack.arns import arn
from adapters.aws.stack.functions import function_id
from adapters.aws.stack.parameters import JWT_AUDIENCE, JWT_ISSUER, LOG_RETENTION

API_ID = "HttpApi"
AUTHORIZER_ID = "HttpApiJwtAuthorizer"
INTEGRATION_ID = "HttpApiIntegration"
ROUTE_ID = "HttpApiDefaultRoute"
STAGE_ID = "HttpApiDefaultStage"
ACCESS_LOG_ID = "HttpApiAccessLogGroup"
PERMISSION_ID = "HttpApiInvokePermission"
_ACCESS_LOG_FORMAT = (
    '{"requestId":"$context.requestId","ip":"$context.identity.sourceIp",'
    '"requestTime":"$context.requestTime","routeKey":"$context.routeKey",'
    '"status":"$context.status","sub":"$context.authorizer.claims.sub",'
    '"error":"$context.authorizer.error"}'
)


def http_api_resources() -> dict[str, Any]:
    function = function_id(HTTP_API)
    return {
        API_ID: {
            "Type": "AWS::ApiGatewayV2::Api",
            "Properties": {
                "Name": {"Fn::Sub": "${AWS::StackName}-api"},
                "ProtocolType": "HTTP",
                "Description": "wfx workflow executions",
            },
        },
        AUTHORIZER_ID: {
            "Type": "AWS::ApiGatewayV2::Authorizer",
            "Properties": {
                "ApiId": {"Ref": API_ID},
                "Name": "wfx-jwt",
                "AuthorizerType": "JWT",
                "IdentitySource": ["$request.header.Authorization"],
                "JwtConfiguration": {
                    "Issuer": {"Ref": JWT_ISSUER},
                    "Audience": {"Ref": JWT_AUDIENCE},
                },
            },
        },
        INTEGRATION_ID: {
            "Type": "AWS::ApiGatewayV2::Integration",
            "Properties": {
                "ApiId": {"Ref": API_ID},
                "IntegrationType": "AWS_PROXY",
                "IntegrationUri": {"Fn::GetAtt": [function, "Arn"]},
                "PayloadFormatVersion": "2.0",  # what Mangum and api_gateway_claims read
            },
        },
        ROUTE_ID: {
            "Type": "AWS::ApiGatewayV2::Route",
            "Properties": {
                "ApiId": {"Ref": API_ID},
                "RouteKey": "$default",  # FastAPI routes; no request reaches it unauthorized
                "AuthorizationType": "JWT",
                "AuthorizerId": {"Ref": AUTHORIZER_ID},
                "Target": {"Fn::Sub": f"integrations/${{{INTEGRATION_ID}}}"},
            },
        },
        ACCESS_LOG_ID: {
            "Type": "AWS::Logs::LogGroup",
            "DeletionPolicy": "Delete",
            "UpdateReplacePolicy": "Delete",
            "Properties": {"RetentionInDays": {"Ref": LOG_RETENTION}},
        },
        STAGE_ID: {
            "Type": "AWS::ApiGatewayV2::Stage",
            "Properties": {
                "ApiId": {"Ref": API_ID},
                "StageName": "$default",
                "AutoDeploy": True,
                "AccessLogSettings": {
                    "DestinationArn": {"Fn::GetAtt": [ACCESS_LOG_ID, "Arn"]},
                    "Format": _ACCESS_LOG_FORMAT,
                },
            },
        },
        PERMISSION_ID: {
            "Type": "AWS::Lambda::Permission",
            "Properties": {
                "Action": "lambda:InvokeFunction",
                "FunctionName": {"Fn::GetAtt": [function, "Arn"]},
                "Principal": "apigateway.amazonaws.com",
                "SourceArn": {
                    "Fn::Sub": [
                        "${ApiArn}/*",
                        {"ApiArn": arn("execute-api", f"${{{API_ID}}}")},
                    ]
                },
            },
        },
    }


def api_url() -> dict[str, Any]:
    return {"Fn::Sub": f"https://${{{API_ID}}}.execute-api.${{AWS::Region}}.${{AWS::URLSuffix}}"}
