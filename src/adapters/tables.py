"""The seed-000 tables, declared once: names, keys and indexes for both storage adapters.

DynamoDB creates them from these specs, the infrastructure template is emitted from them, and the
SQLite adapter mirrors each as one table with the same key columns and one index per GSI or LSI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

AttributeType = Literal["S", "N"]
# A revoked token's row means nothing once the token has expired: the authorization table's TTL
# attribute on DynamoDB (epoch seconds); SQLite prunes such rows itself.
REVOKED_TOKEN_EXPIRY = "expiresAt"


class ResourceKeys(StrEnum):
    """The seed's `get_table_name(ResourceKeys.X)` keys; also the per-table override suffix."""

    WORKFLOW_EXECUTIONS = "WORKFLOW_EXECUTIONS"
    WORKFLOW_EXECUTIONS_V1 = "WORKFLOW_EXECUTIONS_V1"
    PIPELINE_EXECUTIONS = "PIPELINE_EXECUTIONS"
    PIPELINE_INPUT_FILES = "PIPELINE_INPUT_FILES"
    PIPELINE_INPUT_METADATA = "PIPELINE_INPUT_METADATA"
    PIPELINE_INPUT_CONFIGURATION = "PIPELINE_INPUT_CONFIGURATION"
    PIPELINE_OUTPUT_FILES = "PIPELINE_OUTPUT_FILES"
    PIPELINE_OUTPUT_METADATA = "PIPELINE_OUTPUT_METADATA"
    PIPELINE_OUTPUT_RESULTS = "PIPELINE_OUTPUT_RESULTS"
    PIPELINE_LOGS = "PIPELINE_LOGS"
    WORKFLOW_EXECUTION_INPUTS = "WORKFLOW_EXECUTION_INPUTS"
    WORKFLOW_EXECUTION_CONFIGURATION = "WORKFLOW_EXECUTION_CONFIGURATION"
    WORKFLOW_DEFINITIONS = "WORKFLOW_DEFINITIONS"
    WORKFLOW_VERSIONS = "WORKFLOW_VERSIONS"
    STEP_DEFINITIONS = "STEP_DEFINITIONS"
    ASSET_FILES = "ASSET_FILES"
    TASK_EXECUTIONS = "TASK_EXECUTIONS"
    AUTHORIZATION = "AUTHORIZATION"
    EXECUTION_EVENTS = "EXECUTION_EVENTS"
    COST_LEDGER = "COST_LEDGER"
    APPROVAL_REQUESTS = "APPROVAL_REQUESTS"
    ARTIFACTS = "ARTIFACTS"
    RESOLVED_INPUT_FILES = "RESOLVED_INPUT_FILES"


@dataclass(frozen=True)
class KeyAttribute:
    name: str
    type: AttributeType = "S"


@dataclass(frozen=True)
class IndexSpec:
    """A secondary index. `local`: an LSI, which shares the table's partition key, can only be
    declared when the table is created, and is read with strongly consistent reads too."""

    name: str
    partition: KeyAttribute
    sort: KeyAttribute | None = None
    local: bool = False

    @property
    def attributes(self) -> tuple[KeyAttribute, ...]:
        return (self.partition,) if self.sort is None else (self.partition, self.sort)


@dataclass(frozen=True)
class TableSpec:
    key: ResourceKeys
    default_name: str
    partition: KeyAttribute
    sort: KeyAttribute | None
    indexes: tuple[IndexSpec, ...] = ()
    from_seed: bool = True
    # A number attribute (epoch seconds) past which DynamoDB deletes the item (its TTL), for
    # rows the SQLite store prunes once they mean nothing more.
    expiry_attribute: str | None = None

    def __post_init__(self) -> None:
        for index in self.indexes:
            if index.local and (index.partition != self.partition or index.sort is None):
                raise ValueError(
                    f"{self.default_name}.{index.name}: a local index has the table's "
                    "partition key and a sort key of its own"
                )

    @property
    def global_indexes(self) -> tuple[IndexSpec, ...]:
        return tuple(index for index in self.indexes if not index.local)

    @property
    def local_indexes(self) -> tuple[IndexSpec, ...]:
        return tuple(index for index in self.indexes if index.local)

    @property
    def key_attributes(self) -> tuple[KeyAttribute, ...]:
        return (self.partition,) if self.sort is None else (self.partition, self.sort)

    @property
    def all_key_attributes(self) -> tuple[KeyAttribute, ...]:
        """Table and index key attributes, each once, in declaration order."""
        seen: dict[str, KeyAttribute] = {}
        for attribute in (*self.key_attributes, *(a for i in self.indexes for a in i.attributes)):
            seen.setdefault(attribute.name, attribute)
        return tuple(seen.values())

    def index(self, name: str) -> IndexSpec:
        return next(index for index in self.indexes if index.name == name)


def _s(name: str) -> KeyAttribute:
    return KeyAttribute(name, "S")


WORKFLOW_EXECUTION_ID = _s("workflowExecutionId")
PIPELINE_EXECUTION_ID = _s("pipelineExecutionId")
EXECUTION_START_DATE = _s("executionStartDate")
WORKFLOW_KEY = _s("workflowDatabaseId:workflowId")
WORKFLOW_LIST_INDEX = "WorkflowDefinitionsByKeyGSI"
RECORDED_AT = _s("recordedAt")
COSTS_BY_WORKFLOW_INDEX = "CostsByWorkflowGSI"
COSTS_BY_GROUP_INDEX = "CostsByGroupGSI"
COSTS_BY_DATE_INDEX = "CostsByDateGSI"
APPROVALS_BY_ID_INDEX = "ApprovalsByIdGSI"
PENDING_APPROVALS_INDEX = "PendingApprovalsGSI"
APPROVALS_BY_DATE_INDEX = "ApprovalsByDateGSI"
APPROVAL_LIST_SORT = _s("requestedAt:approvalId")
ARTIFACT_KEY = "attempt:fileType:relativeFilePath"

TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        ResourceKeys.WORKFLOW_EXECUTIONS,
        "WorkflowExecutionsStorageTableV2",
        WORKFLOW_EXECUTION_ID,
        _s("workflowDatabaseId:workflowId"),
        (
            IndexSpec(
                "WorkflowExecutionsByWorkflowGSI",
                _s("workflowDatabaseId:workflowId"),
                EXECUTION_START_DATE,
            ),
            IndexSpec("WorkflowExecutionsByGroupGSI", _s("executionGroupId"), EXECUTION_START_DATE),
            IndexSpec("WorkflowExecutionsByDateGSI", _s("allListPartition"), EXECUTION_START_DATE),
        ),
    ),
    # The earlier table, kept as the migration's read source, with the layout of the release
    # before V2 (VAMS 2.5.x): asset-keyed, found by workflow through an LSI and a GSI, and by
    # execution id through a GSI on the bare workflow id.
    TableSpec(
        ResourceKeys.WORKFLOW_EXECUTIONS_V1,
        "WorkflowExecutionsStorageTable",
        _s("databaseId:assetId"),
        _s("executionId"),
        (
            IndexSpec(
                "WorkflowLSI",
                _s("databaseId:assetId"),
                _s("workflowDatabaseId:workflowId"),
                local=True,
            ),
            IndexSpec("WorkflowGSI", _s("workflowDatabaseId:workflowId"), _s("executionId")),
            IndexSpec("ExecutionIdGSI", _s("workflowId"), _s("executionId")),
        ),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_EXECUTIONS,
        "PipelineExecutionsStorageTable",
        PIPELINE_EXECUTION_ID,
        WORKFLOW_EXECUTION_ID,
        (
            IndexSpec(
                "PipelineExecByWorkflowExecGSI",
                WORKFLOW_EXECUTION_ID,
                _s("pipelineDatabaseId:pipelineId"),
            ),
            IndexSpec(
                "PipelineExecChainGSI", WORKFLOW_EXECUTION_ID, _s("from_pipeline_execution_id")
            ),
            IndexSpec("PipelineExecEndStateGSI", WORKFLOW_EXECUTION_ID, _s("endStatePipeline")),
        ),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_INPUT_FILES,
        "PipelineExecutionInputFilesStorageTable",
        PIPELINE_EXECUTION_ID,
        _s("databaseId:assetId:inputAssetFileKey"),
        (IndexSpec("InputFilesByAssetGSI", _s("databaseId:assetId"), PIPELINE_EXECUTION_ID),),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_INPUT_METADATA,
        "PipelineExecutionInputMetadataStorageTable",
        PIPELINE_EXECUTION_ID,
        _s("databaseId:assetId:filePath"),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_INPUT_CONFIGURATION,
        "PipelineExecutionInputConfigurationStorageTable",
        PIPELINE_EXECUTION_ID,
        _s("recordType"),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_OUTPUT_FILES,
        "PipelineExecutionOutputFilesStorageTable",
        PIPELINE_EXECUTION_ID,
        _s("fileType:relativeFilePath"),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_OUTPUT_METADATA,
        "PipelineExecutionOutputMetadataStorageTable",
        PIPELINE_EXECUTION_ID,
        _s("targetFilePath:metadataKey"),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_OUTPUT_RESULTS,
        "PipelineExecutionOutputResultsStorageTable",
        PIPELINE_EXECUTION_ID,
        _s("relativeFilePath"),
    ),
    TableSpec(
        ResourceKeys.PIPELINE_LOGS,
        "PipelineExecutionLogsStorageTable",
        PIPELINE_EXECUTION_ID,
        _s("logType"),
    ),
    TableSpec(
        ResourceKeys.WORKFLOW_EXECUTION_INPUTS,
        "WorkflowExecutionInputsStorageTable",
        WORKFLOW_EXECUTION_ID,
        _s("databaseId:assetId:inputAssetFileKey"),
        (
            IndexSpec(
                "WorkflowExecInputsByAssetGSI", _s("databaseId:assetId"), EXECUTION_START_DATE
            ),
        ),
    ),
    TableSpec(
        ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION,
        "WorkflowExecutionConfigurationStorageTable",
        WORKFLOW_EXECUTION_ID,
        _s("recordType"),
        (
            IndexSpec(
                "WorkflowExecConfigByOutputAssetGSI",
                _s("outputDatabaseId:outputAssetId"),
                EXECUTION_START_DATE,
            ),
        ),
    ),
    # wfx's own tables (not in seed 000), seed 003's definitions: one item per workflow (its
    # owner, creation and latest version number), one per published version, one per step of a
    # version. Versions and step definitions are only ever added, never rewritten.
    TableSpec(
        ResourceKeys.WORKFLOW_DEFINITIONS,
        "WfxWorkflowDefinitionsTable",
        WORKFLOW_KEY,
        None,
        # Every definition carries the constant partition (like allListPartition), so listing
        # the workflows by database, then workflow id, is one Query, never a scan.
        (IndexSpec(WORKFLOW_LIST_INDEX, _s("workflowListPartition"), _s("workflowListSortKey")),),
        from_seed=False,
    ),
    TableSpec(
        ResourceKeys.WORKFLOW_VERSIONS,
        "WfxWorkflowVersionsTable",
        WORKFLOW_KEY,
        KeyAttribute("workflowVersion", "N"),
        from_seed=False,
    ),
    TableSpec(
        ResourceKeys.STEP_DEFINITIONS,
        "WfxStepDefinitionsTable",
        _s("workflowDatabaseId:workflowId:workflowVersion"),
        KeyAttribute("stepIndex", "N"),
        from_seed=False,
    ),
    TableSpec(
        ResourceKeys.ASSET_FILES,
        "WfxAssetFilesTable",
        _s("databaseId:assetId"),
        _s("fileKey"),
        from_seed=False,
    ),
    # wfx's own (seed 003 TASK_EXECUTION): one row per attempt of a step, never rewritten.
    TableSpec(
        ResourceKeys.TASK_EXECUTIONS,
        "WfxTaskExecutionsTable",
        PIPELINE_EXECUTION_ID,
        KeyAttribute("attempt", "N"),
        from_seed=False,
    ),
    # wfx's own: roles, their constraints, user-role assignments and the policy revision, in one
    # small table (one partition per role, one per user), read whole when the policy changes.
    TableSpec(
        ResourceKeys.AUTHORIZATION,
        "WfxAuthorizationTable",
        _s("authPartition"),
        _s("authSort"),
        from_seed=False,
        expiry_attribute=REVOKED_TOKEN_EXPIRY,
    ),
    # wfx's own (seed 003 EVENT_LOG): a run's transitions, numbered 1, 2, 3... with no gap, each
    # written in the same transaction as its transition; a run's partition, read in order.
    TableSpec(
        ResourceKeys.EXECUTION_EVENTS,
        "WfxExecutionEventsTable",
        WORKFLOW_EXECUTION_ID,
        KeyAttribute("sequenceNumber", "N"),
        from_seed=False,
    ),
    # wfx's own (seed 003 COST_LEDGER_ENTRY): append-only, one partition per run, an entry keyed
    # by the attempt that incurred it. Summaries read the indexes, oldest first by recordedAt:
    # by workflow, by group (sparse, as on the main row), and all entries (a constant partition,
    # like allListPartition) for a summary by day. By asset: the run indexes of seed 000.
    TableSpec(
        ResourceKeys.COST_LEDGER,
        "WfxCostLedgerTable",
        WORKFLOW_EXECUTION_ID,
        _s("entryKey"),
        (
            IndexSpec(COSTS_BY_WORKFLOW_INDEX, _s("workflowDatabaseId:workflowId"), RECORDED_AT),
            IndexSpec(COSTS_BY_GROUP_INDEX, _s("executionGroupId"), RECORDED_AT),
            IndexSpec(COSTS_BY_DATE_INDEX, _s("allCostsPartition"), RECORDED_AT),
        ),
        from_seed=False,
    ),
    # wfx's own (seed 003 APPROVAL_REQUEST): a run's gates in its partition (listed with it and
    # deleted with it), found by id through ApprovalsByIdGSI; the pending ones across all runs,
    # newest first, in the sparse PendingApprovalsGSI (its partition attribute is removed by the
    # decision), every one in ApprovalsByDateGSI.
    TableSpec(
        ResourceKeys.APPROVAL_REQUESTS,
        "WfxApprovalRequestsTable",
        WORKFLOW_EXECUTION_ID,
        _s("approvalId"),
        (
            IndexSpec(APPROVALS_BY_ID_INDEX, _s("approvalId")),
            IndexSpec(PENDING_APPROVALS_INDEX, _s("pendingApprovalsPartition"), APPROVAL_LIST_SORT),
            IndexSpec(APPROVALS_BY_DATE_INDEX, _s("allApprovalsPartition"), APPROVAL_LIST_SORT),
        ),
        from_seed=False,
    ),
    # wfx's own (seed 003 ARTIFACT): every output file version a step's attempts wrote, keyed by
    # the attempt (zero-padded, so a step's artifacts sort by attempt), its file type and path.
    # Written with the seed's output-file rows, which keep only the step's latest; a key is
    # written once, so a retry or a redrive never replaces an earlier attempt's.
    TableSpec(
        ResourceKeys.ARTIFACTS,
        "WfxArtifactsTable",
        PIPELINE_EXECUTION_ID,
        _s(ARTIFACT_KEY),
        from_seed=False,
    ),
    # wfx's own: every file a run's selections resolved to at launch, at the version it read
    # (VAMS's inputs table holds one row per selection, a folder with no version): what the
    # local runner reads and what lets a redrive read the same bytes.
    TableSpec(
        ResourceKeys.RESOLVED_INPUT_FILES,
        "WfxResolvedInputFilesTable",
        WORKFLOW_EXECUTION_ID,
        _s("databaseId:assetId:inputAssetFileKey"),
        from_seed=False,
    ),
)

TABLE_SPECS: Mapping[ResourceKeys, TableSpec] = {spec.key: spec for spec in TABLES}
# The earlier table exists only where the previous release made it: declared for its layout and
# its name (the migration's read source), never created by `wfx tables create` or the stack.
NOT_CREATED = frozenset({ResourceKeys.WORKFLOW_EXECUTIONS_V1})
CREATED_TABLES: tuple[TableSpec, ...] = tuple(
    spec for spec in TABLES if spec.key not in NOT_CREATED
)
SEED_TABLES: tuple[TableSpec, ...] = tuple(spec for spec in TABLES if spec.from_seed)

# Where a run's rows are, for its permanent delete, in the order they go: the rows keyed by one
# of its steps' ids (found through the step rows, so they go before the steps), then the rows
# keyed by the run's own id; the main row (WORKFLOW_EXECUTIONS) goes last.
STEP_ROW_TABLES: tuple[ResourceKeys, ...] = tuple(
    spec.key
    for spec in TABLES
    if spec.partition == PIPELINE_EXECUTION_ID and spec.key is not ResourceKeys.PIPELINE_EXECUTIONS
)
RUN_ROW_TABLES: tuple[ResourceKeys, ...] = (
    ResourceKeys.PIPELINE_EXECUTIONS,
    *(
        spec.key
        for spec in TABLES
        if spec.partition == WORKFLOW_EXECUTION_ID
        and spec.key is not ResourceKeys.WORKFLOW_EXECUTIONS
    ),
)
# Holding no row of any one run: the migration's read source (seed 000 keeps it intact), the
# workflow definitions with their versions and steps, and the asset catalog.
NOT_RUN_TABLES = frozenset(
    {
        ResourceKeys.WORKFLOW_EXECUTIONS_V1,
        ResourceKeys.WORKFLOW_DEFINITIONS,
        ResourceKeys.WORKFLOW_VERSIONS,
        ResourceKeys.STEP_DEFINITIONS,
        ResourceKeys.ASSET_FILES,
        ResourceKeys.AUTHORIZATION,
    }
)

TABLE_PREFIX_VARIABLE = "WFX_TABLE_PREFIX"
TABLE_OVERRIDE_PREFIX = "WFX_TABLE_"


@dataclass(frozen=True)
class VamsTable:
    """Where a VAMS deployment names one of its tables: an SSM parameter under the deployment's
    prefix (VAMS_RESOURCE_PARAM_PREFIX), which VAMS's own environment variables override (the
    first one set wins)."""

    parameter: str
    variables: tuple[str, ...]


# VAMS 2.6's names (backend/backend/common/resourceNames.py) for the tables wfx shares with it:
# the eleven execution tables and the earlier one. wfx's own tables have no VAMS name.
VAMS_TABLES: Mapping[ResourceKeys, VamsTable] = {
    ResourceKeys.WORKFLOW_EXECUTIONS: VamsTable(
        "dynamoTables/workflowExecutionsStorageV2", ("WORKFLOW_EXECUTION_STORAGE_TABLE_V2_NAME",)
    ),
    ResourceKeys.WORKFLOW_EXECUTIONS_V1: VamsTable(
        "dynamoTables/workflowExecutionsStorage", ("WORKFLOW_EXECUTION_STORAGE_TABLE_NAME",)
    ),
    ResourceKeys.WORKFLOW_EXECUTION_INPUTS: VamsTable(
        "dynamoTables/workflowExecutionInputsStorage",
        ("WORKFLOW_EXECUTION_INPUTS_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.WORKFLOW_EXECUTION_CONFIGURATION: VamsTable(
        "dynamoTables/workflowExecutionConfigurationStorage",
        ("WORKFLOW_EXECUTION_CONFIGURATION_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.PIPELINE_EXECUTIONS: VamsTable(
        "dynamoTables/pipelineExecutionsStorage", ("PIPELINE_EXECUTIONS_STORAGE_TABLE_NAME",)
    ),
    ResourceKeys.PIPELINE_INPUT_FILES: VamsTable(
        "dynamoTables/pipelineExecutionInputFilesStorage",
        ("PIPELINE_EXECUTION_INPUT_FILES_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.PIPELINE_INPUT_METADATA: VamsTable(
        "dynamoTables/pipelineExecutionInputMetadataStorage",
        ("PIPELINE_EXECUTION_INPUT_METADATA_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.PIPELINE_INPUT_CONFIGURATION: VamsTable(
        "dynamoTables/pipelineExecutionInputConfigurationStorage",
        ("PIPELINE_EXECUTION_INPUT_CONFIGURATION_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.PIPELINE_OUTPUT_FILES: VamsTable(
        "dynamoTables/pipelineExecutionOutputFilesStorage",
        ("PIPELINE_EXECUTION_OUTPUT_FILES_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.PIPELINE_OUTPUT_METADATA: VamsTable(
        "dynamoTables/pipelineExecutionOutputMetadataStorage",
        ("PIPELINE_EXECUTION_OUTPUT_METADATA_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.PIPELINE_OUTPUT_RESULTS: VamsTable(
        "dynamoTables/pipelineExecutionOutputResultsStorage",
        ("PIPELINE_EXECUTION_OUTPUT_RESULTS_STORAGE_TABLE_NAME",),
    ),
    ResourceKeys.PIPELINE_LOGS: VamsTable(
        "dynamoTables/pipelineExecutionLogsStorage",
        ("PIPELINE_EXECUTION_LOGS_STORAGE_TABLE_NAME",),
    ),
}


class TableNameError(RuntimeError):
    """A table whose name could not be found (a VAMS deployment's SSM parameter is missing or
    unreadable); the message names the parameter and what to do, in one line."""


@dataclass(frozen=True)
class TableNames:
    """Resolves a table's name: a per-table override (WFX_TABLE_<KEY>) wins, then the name a
    VAMS deployment gives it, else the prefix plus the seed's name.

    `unresolved`: the tables of a VAMS deployment whose name could not be found, each with the
    reason; asking for one raises TableNameError, so only a command that needs it fails, and
    never on a default name the deployment does not use."""

    prefix: str = ""
    overrides: Mapping[ResourceKeys, str] | None = None
    deployment: Mapping[ResourceKeys, str] | None = None
    unresolved: Mapping[ResourceKeys, str] | None = None

    def get_table_name(self, key: ResourceKeys) -> str:
        if self.overrides and key in self.overrides:
            return self.overrides[key]
        if self.deployment and key in self.deployment:
            return self.deployment[key]
        if self.unresolved and key in self.unresolved:
            raise TableNameError(self.unresolved[key])
        return f"{self.prefix}{TABLE_SPECS[key].default_name}"
