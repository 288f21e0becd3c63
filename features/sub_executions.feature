Feature: Stages of the sub-executions a step registered
  A step may start a state machine of its own and register it. Showing the execution with its
  sub-executions reads that state machine's definition and the run's history and gives every
  stage a status; nothing of it is stored. A sub-execution that cannot be read is UNKNOWN with a
  warning, and the rest of the answer is given all the same.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: A sub-state-machine that ran shows its stages, each with its status
    Given the sub-pipeline ran on Step Functions as "run-1"
    Given the step "prepare" registers the sub-executions "run-1" as it runs
    And alice launched "features/three-steps" over "scans/bunny"
    When alice shows the execution with its sub-executions
    Then the sub-execution "run-1" of the step "prepare" is FAILED
    And the stages of "run-1" are
      | stage    | status      |
      | Prepare  | SUCCEEDED   |
      | Route    | SUCCEEDED   |
      | FanOut   | SUCCEEDED   |
      | Left     | SUCCEEDED   |
      | LeftDone | SUCCEEDED   |
      | Right    | SUCCEEDED   |
      | Skip     | NOT_STARTED |
      | EachItem | SUCCEEDED   |
      | Handle   | SUCCEEDED   |
      | Explode  | FAILED      |
    And there is no sub-execution warning
    And the text shows the stage tree of "run-1"

  Scenario: A sub-execution Step Functions does not know is UNKNOWN and the answer still comes
    Given the step "prepare" registers the sub-executions "never-ran" as it runs
    And alice launched "features/three-steps" over "scans/bunny"
    When alice shows the execution with its sub-executions
    Then the sub-execution "never-ran" of the step "prepare" is UNKNOWN
    And a sub-execution warning names "never-ran" and "ExecutionDoesNotExist"

  Scenario: Two runs of one sub-state-machine describe the state machine once
    Given the sub-pipeline ran on Step Functions as "run-1"
    And the sub-pipeline ran on Step Functions as "run-2"
    Given the step "transform" registers the sub-executions "run-1, run-2" as it runs
    And alice launched "features/three-steps" over "scans/bunny"
    When alice shows the execution with its sub-executions
    Then the sub-execution "run-2" of the step "transform" is FAILED
    And Step Functions was asked 1 time for DescribeStateMachine and 2 times for DescribeExecution

  Scenario: Showing an execution without its sub-executions reads no history
    The details still list the sub-state-machine's logging destination among the step's
    availableLogs, which costs one DescribeStateMachine per request and nothing more.

    Given the sub-pipeline ran on Step Functions as "run-1"
    Given the step "prepare" registers the sub-executions "run-1" as it runs
    And alice launched "features/three-steps" over "scans/bunny"
    When alice shows the execution
    Then Step Functions was asked only for the state machine's logging destination
