Feature: Moving runs between stores
  A team that started on one store keeps its history when it moves to another: every run is
  exported with all its rows and imported into the other store, where it reads the same. Runs a
  write path left out of the global list are listed again by the backfill first.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the workflow "features/generate" is published from "generate.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"

  Scenario: A copy into the other kind of store reads the same, and a second import writes nothing
    Given alice launched "features/three-steps" over "scans/bunny" as run "A"
    And bob launched "features/generate" in group "nightly" as run "B"
    When every run is exported and imported into an empty store of the other kind
    Then the other store holds every item of the export
    And the other store lists and shows every run as this one does
    And importing the export again into the other store writes nothing new

  Scenario: A run missing from the global list is listed again, in start order
    Given alice launched "features/generate" as run "A"
    And alice launched "features/generate" as run "B"
    And alice launched "features/generate" as run "C"
    And run "B" lost its global-list partition
    Then the list of all executions is "C, A"
    When the global-list partition is backfilled
    Then the list of all executions is "C, B, A"
    And backfilling again stamps nothing
