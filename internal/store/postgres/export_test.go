package postgres

// Step is a schema script, for the tests of Migrate.
type Step = step

// NewStep makes a Step.
func NewStep(name, sql string) Step { return step{name: name, sql: sql} }

// Steps are the schema's steps.
var Steps = steps

// MigrateSteps is Migrate with the given steps.
var MigrateSteps = migrate
