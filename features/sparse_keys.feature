Feature: Sparse index keys are absent, never empty
  DynamoDB rejects an empty string in an indexed key and leaves an item without the key out of
  the index, so three keys are written only when they have a value: executionGroupId,
  from_pipeline_execution_id and outputDatabaseId:outputAssetId. Both stores keep the same items.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: An ungrouped run stores no executionGroupId
    When alice launches "features/three-steps" over "scans/bunny"
    Then the stored main row has no "executionGroupId"
    And the stored main row has "allListPartition" = "execution"

  Scenario: A grouped run stores its executionGroupId
    When alice launches "features/three-steps" over "scans/bunny" in group "nightly"
    Then the stored main row has "executionGroupId" = "nightly"

  Scenario: Only the root step stores no from_pipeline_execution_id
    When alice launches "features/three-steps" over "scans/bunny"
    Then the stored row of the step "prepare" has no "from_pipeline_execution_id"
    And the stored row of the step "transform" chains from the step "prepare"
    And the stored row of the step "report" chains from the step "transform"

  Scenario: A results-only run stores no output target
    When alice launches "features/three-steps" over "scans/bunny"
    Then the stored configuration row has no "outputDatabaseId:outputAssetId"

  Scenario: A run with an output asset stores its output target
    When alice launches "features/three-steps" over "scans/bunny" writing to "reports/bunny"
    Then the stored configuration row has "outputDatabaseId:outputAssetId" = "reports:bunny"
