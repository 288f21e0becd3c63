Feature: Workflow versions
  A workflow is a definition (who published it first, when, its latest version) with numbered
  versions that never change. Publishing a changed file adds a version; a run keeps the version
  it was launched with, and each of its steps runs that version's step definition, even when a
  new version is published while the run is under way.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: Publishing twice gives two versions and a running execution keeps its own
    Given bob publishes "three_steps_v2.yaml" as soon as the step "prepare" of a run starts
    When alice launches "features/three-steps" over "scans/bunny"
    Then the new version was published while the execution was RUNNING
    And the workflow "features/three-steps" has the versions "2, 1" with 2 as its latest, owned by "alice"
    And version 2 of "features/three-steps" has the steps "prepare, report"
    And the execution ran version 1, each step on version 1's step definition
    And the step "transform" recorded the output files "middle.txt"
    And the execution is SUCCEEDED
    And a new run of "features/three-steps" runs version 2 without the step "transform"
