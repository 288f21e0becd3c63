Feature: Whether a run can be redriven, as every read shows it
  Every read of a local run (one run, its details, a list page, and so `--json`) says whether it
  can be redriven, as Step Functions' DescribeExecution would: redriveStatus REDRIVABLE, or
  NOT_REDRIVABLE with seed 001's reason. It is worked out when the run is read, by the rules a
  redrive is refused with, so it is never out of date, and it is never stored. A run on Step
  Functions shows what DescribeExecution said when the reconciling read asked it, never a value
  the local rules derive.

  Background:
    Given the asset "scans/bunny" holds the files "mesh.obj"
    And the workflow "features/three-steps" is published from "three_steps.yaml"
    And the workflow "features/fails-midway" is published from "fails_midway.yaml"

  Scenario Outline: A local run that <ending> says whether it can be redriven
    When alice runs a local workflow that <ending>
    Then the execution is <status>
    And every read shows the redrive status "<redrive_status>" with the reason "<reason>"
    And the stored main row has no "redriveStatus"
    And the stored main row has no "redriveStatusReason"

    Examples:
      | ending     | status    | redrive_status | reason                                         |
      | succeeds   | SUCCEEDED | NOT_REDRIVABLE | Execution is SUCCEEDED and cannot be redriven. |
      | fails      | FAILED    | REDRIVABLE     |                                                |
      | is aborted | ABORTED   | REDRIVABLE     |                                                |

  Scenario: A run read while it runs cannot be redriven yet
    Given every read of the execution is noted once the step "transform" starts
    When alice runs a local workflow that succeeds
    Then every read noted while it ran showed the redrive status "NOT_REDRIVABLE" with the reason "Execution is RUNNING and cannot be redriven."

  Scenario: A failed run read 15 days after it stopped is past the redrivable period, as a redrive says
    When alice runs a local workflow that fails
    And 15 days pass
    Then every read shows the redrive status "NOT_REDRIVABLE" with the reason "Execution redrivable period exceeded."
    When alice redrives the execution
    Then the redrive is refused with "Execution redrivable period exceeded."

  Scenario: A run Step Functions ended shows what DescribeExecution said, on the command line and over HTTP
    Given the workflow "features/three-steps" is deployed to Step Functions
    And Step Functions describes an ended execution as "NOT_REDRIVABLE" with the reason "State machine is in DELETING status."
    And alice launched "features/three-steps" over "scans/bunny"
    When the execution is stopped directly in Step Functions
    And 35 seconds pass
    Then every read shows the redrive status "NOT_REDRIVABLE" with the reason "State machine is in DELETING status."
    And the command line and HTTP show and list give the redrive status "NOT_REDRIVABLE" with the reason "State machine is in DELETING status."
