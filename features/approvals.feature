Feature: Approval gates
  A step of executionType approval waits for a person: it creates an approval request naming its
  approvers, and the run is parked - no thread or process waits for it - until one of them
  approves (the run goes on) or rejects it (the run fails with the reason), or nobody decides
  before the gate's timeout (the step ends TIMED_OUT). Only a listed approver decides: holding
  the admin role is not enough. Each request and decision is in the run's event log.

  Background:
    Given the workflow "features/gated" is published from "gated.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: A run waits at an approval gate, is approved and completes
    When alice launches "features/gated" over "scans/bunny"
    Then the execution is RUNNING, parked at the gate "sign-off" with no runner holding it
    And the step "report" never started
    And the pending approvals are the gate "sign-off" of the execution, for "carol, role::release-managers"
    When dave, holding the role "release-managers", approves the gate saying "file list checked"
    Then the execution is SUCCEEDED
    And the approval is APPROVED by "dave" saying "file list checked"
    And no approval is pending
    And the step "report" is SUCCEEDED
    And the event log of the execution has "ApprovalRequested PENDING, ApprovalDecided APPROVED" between the steps "prepare" and "report"

  Scenario: A rejected run fails with the reason
    When alice launches "features/gated" over "scans/bunny"
    And carol rejects the gate saying "the mesh is the wrong one"
    Then the execution is FAILED
    And the step "sign-off" is FAILED
    And the step "sign-off" has an error naming "wfx.ApprovalRejected: rejected by carol: the mesh is the wrong one"
    And the step "report" never started
    And the approval is REJECTED by "carol" saying "the mesh is the wrong one"

  Scenario: A gate nobody decides times out
    When alice launches "features/gated" over "scans/bunny"
    And 1 day passes
    Then the execution is TIMED_OUT
    And the step "sign-off" is TIMED_OUT
    And the approval is TIMED_OUT
    And carol's approval of the gate is refused as closed naming "TIMED_OUT"

  Scenario: A user who is not an approver may not decide, whatever roles they hold
    When alice launches "features/gated" over "scans/bunny"
    And mallory, holding the role "admin", approves the gate saying "looks fine to me"
    Then the decision is refused as not authorized naming "carol, role::release-managers"
    And the approval is PENDING
    And the execution is RUNNING, parked at the gate "sign-off" with no runner holding it

  Scenario: Aborting a run parked at a gate ends it and cancels the gate
    When alice launches "features/gated" over "scans/bunny"
    And alice aborts the execution
    Then the execution is ABORTED
    And the step "sign-off" is ABORTED
    And the approval is CANCELLED
    And no approval is pending
    And carol's approval of the gate is refused as closed naming "CANCELLED"

  Scenario: A rejected run redriven asks its approvers again
    When alice launches "features/gated" over "scans/bunny"
    And carol rejects the gate saying "not yet"
    And alice redrives the execution
    Then the execution is RUNNING, parked at the new gate "sign-off" of its second attempt
    When carol approves the new gate saying "now it is"
    Then the execution is SUCCEEDED with a redrive count of 1
    And the approvals of the execution are "REJECTED by carol, APPROVED by carol"

  Scenario: A run an older wfx left parked at the gate it decided goes on at the next read
    When alice launches "features/gated" over "scans/bunny"
    And an older wfx records carol's approval of the gate, then dies before handing the run on
    Then the execution is SUCCEEDED
    And the step "report" is SUCCEEDED

  Scenario: A run an older wfx left parked at the gate it timed out ends at the next read
    When alice launches "features/gated" over "scans/bunny"
    And 1 day passes
    And an older wfx closes the gate timed out, then dies before handing the run on
    Then the execution is TIMED_OUT
    And the step "sign-off" is TIMED_OUT
    And the step "report" never started
