Feature: Reading a run's log sources
  Each step lists the logs it offers, each with a stable logId: the logs it registered and its
  own invocation log. The logs route reads one source alone by its logId and reports the others
  as not read. A stream the step registered is its own and is read whole; a prefix could match
  other runs' streams, so what it reads is filtered to the run.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: A registered log is listed beside the invocation log and read alone by its logId
    Given the step "prepare" registers the log stream "run-1.log" of the log group "tools" as it runs
    When alice launches "features/three-steps" over "scans/bunny"
    And the local log folder "tools" holds "run-1.log" with a line of this run and one of another
    Then the step "prepare" offers its invocation log and then a registered log of "tools"
    When alice reads the registered log "tools" of the step "prepare" by its logId
    Then the source read is reported read and every other log source notRead
    And the lines read are the line of this run and the line of the other run

  Scenario: A registered prefix is read filtered to the run
    Given the step "prepare" registers the log stream prefix "run-" of the log group "tools" as it runs
    When alice launches "features/three-steps" over "scans/bunny"
    And the local log folder "tools" holds "run-1.log" with a line of this run and one of another
    And alice reads the registered log "tools" of the step "prepare" by its logId
    Then the lines read are the line of this run only

  Scenario: A step's own invocation log is read by its logId
    When alice launches "features/three-steps" over "scans/bunny"
    And alice reads the invocation log of the step "report" by its logId
    Then the lines read are "report ran"

  Scenario: An unknown logId is refused, naming it
    When alice launches "features/three-steps" over "scans/bunny"
    And alice reads the log "0123456789abcdef"
    Then the read is refused as not found naming "0123456789abcdef"
