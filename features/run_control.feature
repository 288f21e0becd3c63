Feature: An abort wins against the runner
  A step waits on a child it registered. The abort kills the child first, so the step returns as
  if it had succeeded; the abort must win all the same: recorded before anything is stopped, it
  turns that success into ABORTED, refuses the next step's start, and keeps the run from ever
  ending SUCCEEDED. The race is run again and again, on a run in the foreground (a thread of
  this process) and on one detached into a worker process.

  Background:
    Given the workflow "features/waits-on-child" is published from "waits_on_child.yaml"

  Scenario Outline: Aborting a <mode> run while its step waits on a child it registered
    When a <mode> run of "features/waits-on-child" is aborted while its step waits, <times> times
    Then every one of those runs is ABORTED with its step "wait-on-child" ABORTED
    And in none of them did the step "after" start or its output reach the store
    And no child and no runner of those runs is left running

    # A detached run costs a worker process each time: fewer rounds, the same race.
    Examples:
      | mode       | times |
      | foreground | 20    |
      | detached   | 6     |
