Feature: Completion of a run
  When the last step ends, the run records its outputs, metadata, results and a summary log per
  step, then its terminal status with a stop date and the full log. Only a failed run carries an
  error message.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj, notes.txt"

  Scenario: A successful run has a stop date and its log, and no error
    When alice launches "features/three-steps" over "scans/bunny"
    Then the execution is SUCCEEDED
    And the execution has a stop date after its start date
    And the execution has no error
    And the execution log holds "prepare read 2 files: mesh.obj, notes.txt"
    And the execution log holds "transform saw 2 prepared names"
    And the execution log holds "report ran"

  Scenario: A failing command step fails the run, and the steps after it never start
    Given the workflow "features/fails-midway" is published from "fails_midway.yaml"
    When alice launches "features/fails-midway" over "scans/bunny"
    Then the execution is FAILED
    And the execution has a stop date after its start date
    And the execution error names "exit code 3"
    And the execution log holds "boom"
    And the step "prepare" is SUCCEEDED
    And the step "explode" is FAILED
    And the step "explode" has an error naming "exit code 3"
    And the step "report" never started
    And every step has a summary log naming its status

  Scenario: A finished run records its output files, metadata, results and summary logs
    When alice launches "features/three-steps" over "scans/bunny"
    Then the step "report" recorded the output files "report.txt, metadata/report.txt.json"
    And the step "report" recorded the metadata "lines" = "2" for "/report.txt"
    And the step "report" recorded the metadata "checked" = "true" for "/report.txt"
    And the step "report" recorded the results "prepared.txt, shared.txt, middle.txt, report.txt"
    And every step has a summary log naming its status

  Scenario: A results-only run records its results and no output asset
    When alice launches "features/three-steps" over "scans/bunny"
    Then the results name no output asset

  Scenario: A run with an output asset writes new versions of the output asset's files
    Given the asset "reports/bunny" holds the files "report.txt"
    When alice launches "features/three-steps" over "scans/bunny" writing to "reports/bunny"
    Then the execution is SUCCEEDED
    And the asset file "reports/bunny/report.txt" is now the run's "report.txt" as a new version
    And the results point at the new versions in "reports/bunny"
