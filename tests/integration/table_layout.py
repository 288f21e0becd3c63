"""The table layout the black-box checks expect, copied by hand from seed 000 and issue 10, not
derived from `adapters.tables`: a slip in the specs must fail a check rather than be mirrored into
its expectation. Shared by the `create_tables` checks and the CloudFormation stack checks."""

from __future__ import annotations

from typing import Any

Keys = tuple[str, str]

# Seed 000, "Tables": name -> ((PK, SK), {GSI name: (PK, SK)}).
SEED_000_TABLES: dict[str, tuple[Keys, dict[str, Keys]]] = {
    "WorkflowExecutionsStorageTableV2": (
        ("workflowExecutionId", "workflowDatabaseId:workflowId"),
        {
            "WorkflowExecutionsByWorkflowGSI": (
                "workflowDatabaseId:workflowId",
                "executionStartDate",
            ),
            "WorkflowExecutionsByGroupGSI": ("executionGroupId", "executionStartDate"),
            "WorkflowExecutionsByDateGSI": ("allListPartition", "executionStartDate"),
        },
    ),
    "PipelineExecutionsStorageTable": (
        ("pipelineExecutionId", "workflowExecutionId"),
        {
            "PipelineExecByWorkflowExecGSI": (
                "workflowExecutionId",
                "pipelineDatabaseId:pipelineId",
            ),
            "PipelineExecChainGSI": ("workflowExecutionId", "from_pipeline_execution_id"),
            "PipelineExecEndStateGSI": ("workflowExecutionId", "endStatePipeline"),
        },
    ),
    "PipelineExecutionInputFilesStorageTable": (
        ("pipelineExecutionId", "databaseId:assetId:inputAssetFileKey"),
        {"InputFilesByAssetGSI": ("databaseId:assetId", "pipelineExecutionId")},
    ),
    "PipelineExecutionInputMetadataStorageTable": (
        ("pipelineExecutionId", "databaseId:assetId:filePath"),
        {},
    ),
    "PipelineExecutionInputConfigurationStorageTable": (
        ("pipelineExecutionId", "recordType"),
        {},
    ),
    "PipelineExecutionOutputFilesStorageTable": (
        ("pipelineExecutionId", "fileType:relativeFilePath"),
        {},
    ),
    "PipelineExecutionOutputMetadataStorageTable": (
        ("pipelineExecutionId", "targetFilePath:metadataKey"),
        {},
    ),
    "PipelineExecutionOutputResultsStorageTable": (
        ("pipelineExecutionId", "relativeFilePath"),
        {},
    ),
    "PipelineExecutionLogsStorageTable": (("pipelineExecutionId", "logType"), {}),
    "WorkflowExecutionInputsStorageTable": (
        ("workflowExecutionId", "databaseId:assetId:inputAssetFileKey"),
        {"WorkflowExecInputsByAssetGSI": ("databaseId:assetId", "executionStartDate")},
    ),
    "WorkflowExecutionConfigurationStorageTable": (
        ("workflowExecutionId", "recordType"),
        {
            "WorkflowExecConfigByOutputAssetGSI": (
                "outputDatabaseId:outputAssetId",
                "executionStartDate",
            )
        },
    ),
}
# Seed 000: "a separate, earlier table kept intact as the read source for the data migration",
# with the layout of its previous release (issue 10): asset-keyed, one LSI and two GSIs.
EARLIER_TABLE = "WorkflowExecutionsStorageTable"
EARLIER_TABLE_KEYS: Keys = ("databaseId:assetId", "executionId")
EARLIER_TABLE_LOCAL_INDEXES: dict[str, Keys] = {
    "WorkflowLSI": ("databaseId:assetId", "workflowDatabaseId:workflowId")
}
EARLIER_TABLE_GLOBAL_INDEXES: dict[str, Keys] = {
    "WorkflowGSI": ("workflowDatabaseId:workflowId", "executionId"),
    "ExecutionIdGSI": ("workflowId", "executionId"),
}


def key_names(key_schema: list[Any]) -> Keys:
    by_type = {element["KeyType"]: element["AttributeName"] for element in key_schema}
    return by_type["HASH"], by_type["RANGE"]


def indexes_of(table: Any, member: str) -> dict[str, tuple[Keys, str]]:
    """A described table's GSIs or LSIs (`member`): name -> (keys, projection type)."""
    return {
        index["IndexName"]: (key_names(index["KeySchema"]), index["Projection"]["ProjectionType"])
        for index in table.get(member, [])
    }


def create_earlier_table(client: Any, name: str = EARLIER_TABLE) -> None:
    """The earlier table as VAMS 2.5.x created it (from the hand-copied layout above): wfx no
    longer creates it, so the migration's tests make it themselves."""
    local_indexes = EARLIER_TABLE_LOCAL_INDEXES
    global_indexes = EARLIER_TABLE_GLOBAL_INDEXES
    names = {*EARLIER_TABLE_KEYS} | {
        n for keys in (*local_indexes.values(), *global_indexes.values()) for n in keys
    }

    def schema(keys: Keys) -> list[dict[str, str]]:
        return [
            {"AttributeName": keys[0], "KeyType": "HASH"},
            {"AttributeName": keys[1], "KeyType": "RANGE"},
        ]

    client.create_table(
        TableName=name,
        KeySchema=schema(EARLIER_TABLE_KEYS),
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in sorted(names)],
        LocalSecondaryIndexes=[
            {"IndexName": i, "KeySchema": schema(k), "Projection": {"ProjectionType": "ALL"}}
            for i, k in local_indexes.items()
        ],
        GlobalSecondaryIndexes=[
            {"IndexName": i, "KeySchema": schema(k), "Projection": {"ProjectionType": "ALL"}}
            for i, k in global_indexes.items()
        ],
        BillingMode="PAY_PER_REQUEST",
    )
