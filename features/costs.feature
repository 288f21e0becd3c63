Feature: The cost ledger
  Seed 003: every attempt of a step incurs cost entries, appended and never rewritten. The
  runner records how long each attempt ran; a step reports its usage; a billing export corrects
  an estimate by superseding it, and summaries count only what nothing superseded.

  Background:
    Given the asset "scans/bunny" holds the files "mesh.obj, notes.txt"
    And the workflow "features/flaky" is published from "flaky.yaml"
    And the step "flaky" fails the first time it runs
    When alice launches "features/flaky" over "scans/bunny"

  Scenario: Each attempt of a step records how long it ran, a retried step once per attempt
    Then the execution's duration entries are "prepare 1, flaky 1, flaky 2, report 1"

  Scenario: A billing export replaces the estimate it corrects in the summary
    When the step "flaky" reports 100 "lambda-GB-seconds" at the rate card's price
    Then the execution's costs are "USD estimate 0.00166667"
    When a billing export bills that usage as 100 "lambda-GB-seconds" at "0.00002" USD
    Then the execution's costs are "USD actual 0.002"
    And 1 entry of the execution is superseded

  Scenario: A billing export with one bad line changes nothing
    When the step "flaky" reports 100 "lambda-GB-seconds" at the rate card's price
    And a billing export has a good line and a line whose quantity is "many"
    Then the export is refused naming "line 3, column quantity"
    And the execution's costs are "USD estimate 0.00166667"
