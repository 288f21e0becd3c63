"""The deployable CloudFormation stack of wfx (`wfx infra template`) and its Lambda package
(`wfx infra package`): every resource is built from a declaration the code shares, the tables from
`adapters.tables`, each function's permissions from `access.FUNCTIONS`."""
