Feature: Launch a workflow execution
  A user launches a published workflow over asset files. The launch records the run, one row
  per step, the input files pinned to the versions it read, and the request as configured;
  the local runner then takes the run to its end.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj, notes.txt"

  @observed
  Scenario: A launch records the run, its steps, its inputs and its configuration
    When alice launches "features/three-steps" over "scans/bunny"
    Then the execution was launched RUNNING with its first step RUNNING and the others NEW
    And the execution stayed RUNNING until it completed
    And the execution is SUCCEEDED
    And the execution has one step row per step of "features/three-steps", in chain order
    And the execution read "scans/bunny/mesh.obj, scans/bunny/notes.txt" at the versions first imported
    And the execution's configuration records version 1 and the inputs "scans/bunny"
    And the execution was triggered by "alice" as "Manual"

  Scenario: The inputs stay pinned to the versions the run read
    When alice launches "features/three-steps" over "scans/bunny/mesh.obj"
    And the file "scans/bunny/mesh.obj" gets a new version
    Then the execution read "scans/bunny/mesh.obj" at the versions first imported
    And the current version of "scans/bunny/mesh.obj" is not the one the execution read

  Scenario: A run triggered by a file upload is stored as File-Upload and belongs to SYSTEM_USER
    When alice launches "features/three-steps" over "scans/bunny" with trigger "fileUpload"
    Then the execution was triggered by "SYSTEM_USER" as "File-Upload"
    And the execution is SUCCEEDED

  Scenario Outline: A request naming something wrong is refused and records nothing
    When alice launches "<workflow>" over "<inputs>" with trigger "<trigger>"
    Then the launch is refused as <refusal> naming "<problem>"
    And no execution is listed

    Examples:
      | workflow             | inputs                | trigger | refusal   | problem                         |
      | features/unknown     | scans/bunny           | manual  | not found | workflow features/unknown       |
      | features/three-steps | scans/missing         | manual  | not found | asset scans/missing not found   |
      | features/three-steps | scans/bunny/nope.obj  | manual  | not found | file scans/bunny/nope.obj       |
      | features/three-steps | bunny                 | manual  | invalid   | inputs[0]: expected DATABASE_ID |
      | features/three-steps | scans/bunny           | cron    | invalid   | trigger: must be one of         |

  Scenario: The same client token with the same request returns the same execution
    When alice launches "features/three-steps" over "scans/bunny" with client token "nightly-42"
    And alice launches "features/three-steps" over "scans/bunny" with client token "nightly-42"
    Then both launches returned the same execution
    And 1 execution is listed

  Scenario: The same client token with a different request is refused as a conflict
    When alice launches "features/three-steps" over "scans/bunny" with client token "nightly-42"
    And alice launches "features/three-steps" over "scans/bunny/mesh.obj" with client token "nightly-42"
    Then the launch is refused as a conflict naming "nightly-42"
    And 1 execution is listed
