Feature: The execution history of an asset
  An asset's history is every run that read it and every run that wrote to it, newest first,
  each run once. A run whose steps read no input (inputFileArity none) is linked to an asset
  only through its output target.

  Background:
    Given the workflow "features/three-steps" is published from "three_steps.yaml"
    And the workflow "features/generate" is published from "generate.yaml"
    And the asset "scans/bunny" holds the files "mesh.obj"
    And the asset "scans/dragon" holds the files "mesh.obj"

  Scenario: The runs that read the asset and the runs that wrote to it
    Given alice launched "features/three-steps" over "scans/bunny" as run "read bunny"
    And alice launched "features/three-steps" over "scans/dragon" writing to "scans/bunny" as run "wrote bunny"
    And alice launched "features/three-steps" over "scans/dragon" as run "read dragon"
    Then the list of asset "scans/bunny" is "wrote bunny, read bunny"
    And the list of asset "scans/dragon" is "read dragon, wrote bunny"

  Scenario: A run that read the asset and wrote to it appears once
    Given alice launched "features/three-steps" over "scans/bunny" writing to "scans/bunny" as run "both"
    Then the list of asset "scans/bunny" is "both"

  Scenario: A run that reads no input is linked to the asset it wrote to
    Given alice launched "features/generate" writing to "scans/bunny" as run "generated"
    And alice launched "features/generate" as run "results only"
    Then the run "generated" read no input files
    And the list of asset "scans/bunny" is "generated"
    And the list of asset "scans/dragon" is empty
    And the list of all executions is "results only, generated"

  Scenario: Paging through an asset's history walks each run once
    Given alice launched "features/three-steps" over "scans/bunny" as run "A"
    And alice launched "features/generate" writing to "scans/bunny" as run "B"
    And alice launched "features/three-steps" over "scans/bunny" writing to "scans/bunny" as run "C"
    And alice launched "features/three-steps" over "scans/dragon" as run "D"
    And alice launched "features/three-steps" over "scans/bunny" as run "E"
    Then paging through asset "scans/bunny" 2 at a time gives "E, C | B, A"
    And paging through asset "scans/bunny" 1 at a time gives "E | C | B | A"
