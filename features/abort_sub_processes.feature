Feature: Abort reaches inside a running step
  A step may register what it started itself: a sub-state-machine, a Batch or Deadline Cloud job,
  a local process. Aborting the run stops those first, records what became of each child on the
  step, and warns about any child wfx cannot stop, naming it, so nothing is left running unseen.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"
    And the workflow "features/three-steps" is deployed to Step Functions
    When alice launches "features/three-steps" over "scans/bunny"
    And the step "prepare" starts
    And the step "prepare" registers a sub-state-machine it started in Step Functions
    And the step "prepare" registers a "kubernetesJob" with the id "pod-7"

  Scenario: Aborting the run stops its sub-state-machine and warns about the unknown child
    When alice aborts the execution and reads the warnings
    Then the execution is ABORTED
    And the sub-state-machine is ABORTED in Step Functions
    And the abort warned "step prepare: kubernetesJob pod-7 was left running: wfx cannot stop kubernetesJob"
    And the abort warned nothing else
    And the step "prepare" recorded the sub-state-machine as stopped
    And the step "prepare" recorded "pod-7" as unsupported

  Scenario: Aborting a run that finished stops nothing inside it
    When the end-state callback recorded the execution SUCCEEDED
    And alice aborts the execution and reads the warnings
    Then the execution is SUCCEEDED
    And the abort warned nothing else
    And the sub-state-machine is RUNNING in Step Functions
    And the step "prepare" recorded no stop outcomes
