"""Adapters for AWS services other than DynamoDB: Step Functions runs and state machines."""
