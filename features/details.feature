Feature: Bounded execution details
  The details of a run hold at most a bound of each collection and name every collection they
  cut, with a token that pages the rest through the details metadata.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"

  Scenario: A run's inputs beyond the bound are named, and paging returns each of the rest once
    Given the asset "scans/many" holds 130 files
    And alice launched "features/three-steps" over "scans/many" as run "A"
    When the details of run "A" are read
    Then the details hold 100 inputs
    And the details name "inputs" as truncated after 100 of "more"
    And paging the rest of "inputs" 7 at a time returns the other 30 inputs, each once

  Scenario: Details with nothing cut name no collection
    Given the asset "scans/few" holds the files "a.obj, b.obj"
    And alice launched "features/three-steps" over "scans/few" as run "A"
    When the details of run "A" are read
    Then the details hold 2 inputs
    And the details name no truncated collection

  Scenario: An unknown collection is refused, naming the field and the allowed values
    Given the asset "scans/few" holds the files "a.obj"
    And alice launched "features/three-steps" over "scans/few" as run "A"
    When the collection "outputs" of run "A" is paged
    Then the paging is refused naming "collection: must be one of input, inputDatabase, output, inputs, pipelineExecutions"
