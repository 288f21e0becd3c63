Feature: Registering what a pipeline step started
  A running step reports the sub-processes and log locations it started by publishing a
  registration event whose source names the run and the step. Only that step's row takes it:
  an event whose source names another step is refused with a reason and writes nothing.
  A redelivery merges what the stored entry lacked and never adds a duplicate. As VAMS, a step
  takes registrations after it has ended too: being on the row is what lets an abort stop it.
  On the local runner each step is also given its own registration token, and an event without
  the token of the step it names is refused: knowing another run's ids is not enough.

  Background:
    Given the workflow "features/registers" is published from "registers.yaml"

  Scenario: A pipeline registers a sub-state-machine and a log through the local bus
    When alice launches "features/registers"
    Then the execution is SUCCEEDED
    And the step "start-inner" registered its inner run as a "stepFunctionsExecution" sub-execution
    And the step "start-inner" registered 1 log: the group "/wfx/inner" with the stream prefix "states/" from a "stateMachine"
    And the step "report" registered nothing

  Scenario: A redelivery merges a label in and adds no duplicate
    When alice launches "features/registers" and, before the step "start-inner" ends, its registration is delivered again with the label "inner states"
    Then the registration is accepted
    And the step "start-inner" registered 1 log: the group "/wfx/inner" with the stream prefix "states/" from a "stateMachine"
    And the log of the step "start-inner" is labelled "inner states"
    And the step "start-inner" registered 1 sub-execution

  Scenario: A spoofed source is refused and writes nothing
    When alice launches "features/registers"
    And an event whose source names the step "report" registers the log group "/wfx/spoofed" on the step "start-inner"
    Then the registration is refused, naming ".pipeline."
    And the step "start-inner" registered 1 log: the group "/wfx/inner" with the stream prefix "states/" from a "stateMachine"
    And the step "report" registered nothing

  Scenario: A step of another run cannot register onto this run, even with its own token
    When alice launches "features/registers" as run "victim"
    And alice launches "features/registers" as run "intruder"
    And the step "start-inner" of run "intruder" registers the log group "/wfx/intruder" on the step "report" of run "victim" with its own token
    Then the registration is refused, naming "the registration token is not this step's"
    And nothing was registered on the step "report" of run "victim"

  Scenario: A registration without a token is refused, naming the step
    When alice launches "features/registers"
    And the log group "/wfx/anonymous" is registered on the step "report" without a token
    Then the registration is refused, naming "no registration token"
    And the step "report" registered nothing

  Scenario: A registration onto a step that has ended is recorded
    When alice launches "features/registers"
    And the log group "/wfx/late" is registered on the step "start-inner" with its token
    Then the registration is accepted
    And the step "start-inner" registered 2 logs
