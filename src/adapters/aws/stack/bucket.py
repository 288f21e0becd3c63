"""The versioned bucket: asset files as versions (seed 000's versionIds are S3's), run outputs
under each execution's prefix, offloaded bodies. Encrypted, never public, TLS only."""

from __future__ import annotations

from typing import Any

BUCKET_ID = "DataBucket"
BUCKET_POLICY_ID = "DataBucketPolicy"


def bucket_resources() -> dict[str, Any]:
    bucket_arn = {"Fn::GetAtt": [BUCKET_ID, "Arn"]}
    return {
        BUCKET_ID: {
            "Type": "AWS::S3::Bucket",
            # the assets' versions and the runs' outputs outlive the stack, as the tables do
            "DeletionPolicy": "RetainExceptOnCreate",
            "UpdateReplacePolicy": "Retain",
            "Properties": {
                "VersioningConfiguration": {"Status": "Enabled"},
                "BucketEncryption": {
                    "ServerSideEncryptionConfiguration": [
                        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
                    ]
                },
                "PublicAccessBlockConfiguration": {
                    "BlockPublicAcls": True,
                    "BlockPublicPolicy": True,
                    "IgnorePublicAcls": True,
                    "RestrictPublicBuckets": True,
                },
                "OwnershipControls": {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]},
            },
        },
        BUCKET_POLICY_ID: {
            "Type": "AWS::S3::BucketPolicy",
            "Properties": {
                "Bucket": {"Ref": BUCKET_ID},
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Sid": "TlsOnly",
                            "Effect": "Deny",
                            "Principal": "*",
                            "Action": "s3:*",
                            "Resource": [
                                bucket_arn,
                                {"Fn::Sub": f"${{{BUCKET_ID}.Arn}}/*"},
                            ],
                            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                        }
                    ],
                },
            },
        },
    }
