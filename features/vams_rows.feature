Feature: Runs VAMS wrote, read and acted on by wfx
  A VAMS 2.6 deployment and wfx share the execution tables. A run VAMS launched is written by
  VAMS's own launch, tracking and completion, item for item in every table, with none of wfx's
  own attributes (tests/vams_items.py): 32-hex ids, whole-second dates, one input row per
  selection, "" and false for what has no value. wfx lists it, shows it, pages its details,
  lists its logs with VAMS's logIds, answers its events and describe, aborts it, reruns it,
  exports it and deletes it, as it does its own runs.

  Scenario: A run VAMS wrote is in every list it belongs to
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    Then the list of all executions is "V"
    And the list of workflow "vamsdb/wf-vams" is "V"
    And the list of group "nightly" is "V"
    And the runs that read asset "vamsdb/asset-a" are "V"
    And the runs that wrote to asset "vamsdb/asset-out" are "V"
    And the list of executions with status SUCCEEDED is "V"
    And the list of executions with status RUNNING is ""

  Scenario: A run VAMS wrote shows its statuses, its steps in chain order and its selections
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    Then run "V" is shown SUCCEEDED, triggered by alice in group "nightly"
    And run "V" shows the steps "mesh-scan, mesh-convert, mesh-report" in chain order, each SUCCEEDED
    And run "V" shows as its inputs the selections "/asset-a/meshes/ at no version, /asset-a/bunny.obj at its version"
    And run "V" shows the outputs VAMS recorded for the step "mesh-report"
    And the main row and the step rows of run "V" are as VAMS wrote them

  Scenario: The details metadata pages a run VAMS wrote, a database's own metadata apart
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    Then paging the "inputs" of run "V" 1 at a time gives each of its 2 selections once
    And paging the "pipelineExecutions" of run "V" 1 at a time gives "mesh-scan, mesh-convert, mesh-report"
    And paging the "input" metadata of run "V" 1 at a time gives the rows "vamsdb:asset-a:/, vamsdb:asset-a:/bunny.obj"
    And paging the "inputDatabase" metadata of run "V" 1 at a time gives the rows "vamsdb::/"
    And paging the "output" metadata of run "V" 1 at a time gives the rows "/:polycount, /bunny.glb:format"

  Scenario: A run VAMS wrote offers its logs under the logIds VAMS gives them
    Given VAMS wrote a run that ended SUCCEEDED, as run "V", its first step having registered logs
    Then the step "mesh-scan" of run "V" offers the logIds VAMS lists for it
    And the logs of run "V" are read, its run log as VAMS wrote it

  Scenario: The events and the description of a run VAMS wrote are answered, never a traceback
    Given VAMS wrote a run still RUNNING on Step Functions, as run "V"
    Then the events of run "V" are answered: none
    And the description of run "V" names its Step Functions execution, RUNNING

  Scenario: The command line lists and shows a run VAMS wrote, and says why it has no events
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    When alice runs "wfx executions list --workflow vamsdb/wf-vams --json"
    Then the command succeeds, its JSON listing run "V"
    When alice runs "wfx executions show V --json"
    Then the command succeeds, its JSON showing run "V" SUCCEEDED with the steps "mesh-scan, mesh-convert, mesh-report"
    When alice runs "wfx executions events V"
    Then the command succeeds, printing no event and saying "a run VAMS launched has none"

  Scenario: A run VAMS wrote that Step Functions no longer holds is described from its rows
    Given VAMS wrote a run that ended SUCCEEDED long ago, which Step Functions no longer holds, as run "V"
    Then the events of run "V" are answered: none
    And the description of run "V" is SUCCEEDED, from its rows

  Scenario: An abort leaves a run VAMS wrote that has ended as VAMS wrote it
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    When alice aborts run "V"
    Then the abort answers run "V" SUCCEEDED
    And the main row and the step rows of run "V" are as VAMS wrote them

  Scenario: A run VAMS wrote that still runs is deleted only when forced, its execution stopped first
    Given VAMS wrote a run still RUNNING on Step Functions, as run "V"
    When alice deletes run "V"
    Then the command is refused naming "RUNNING"
    And run "V" is shown RUNNING, triggered by alice in group "nightly"
    When alice deletes run "V", forced
    Then the Step Functions execution of run "V" is ABORTED
    And no table holds an item of run "V"

  Scenario: A run VAMS wrote is aborted while it runs, its finished step untouched
    Given VAMS wrote a run still RUNNING on Step Functions, as run "V"
    Then the list of executions with status RUNNING is "V"
    And run "V" shows the steps "mesh-scan, mesh-convert, mesh-report" as "SUCCEEDED, RUNNING, NEW"
    When alice aborts run "V"
    Then run "V" is shown ABORTED, triggered by alice in group "nightly"
    And run "V" shows the steps "mesh-scan, mesh-convert, mesh-report" as "SUCCEEDED, ABORTED, ABORTED"
    And the step "mesh-scan" of run "V" kept the dates VAMS wrote
    And the Step Functions execution of run "V" is ABORTED

  Scenario: A run VAMS wrote that succeeded is not redriven, in Step Functions' words
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    When alice redrives run "V"
    Then the redrive is refused with "Execution is SUCCEEDED and cannot be redriven."

  Scenario: A run VAMS wrote is rerun once ended, as a new wfx run over its selections
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    And the workflow "vamsdb/wf-vams" is published from "vams_wf.yaml"
    And the asset "vamsdb/asset-a" holds the files "meshes/bunny.obj, meshes/teapot.obj, bunny.obj"
    And the asset "vamsdb/asset-out" holds the files "old.txt"
    When bob reruns run "V"
    Then the execution is SUCCEEDED
    And the execution reruns run "V", triggered by bob in no group
    And the execution selected "vamsdb/asset-a/meshes/, vamsdb/asset-a/bunny.obj" and writes to "vamsdb/asset-out"

  Scenario: A run VAMS wrote is exported with its items of every table, and imported back
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    When every run is exported
    Then the export holds run "V" with every item VAMS wrote
    When alice deletes run "V"
    And the export is imported
    Then every item VAMS wrote of run "V" is back as it was

  Scenario: A run VAMS wrote is deleted for good, leaving nothing in any table
    Given VAMS wrote a run that ended SUCCEEDED, as run "V"
    When alice deletes run "V"
    Then run "V" is not found
    And no table holds an item of run "V"
