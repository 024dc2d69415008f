package plan

// The files echoctl keeps beside a plan, named PLAN.<kind> (app.plan.trace, app.plan.shim,
// ...) so that one .gitignore line, *.plan.*, keeps them out of a repository that keeps the
// plans (*.plan) themselves.
const (
	SideTrace       = "trace"       // optimize's trace of the program
	SideDeployment  = "shim"        // run --print-env's deployment, for the preload library
	SideCalibration = "calibration" // calibrate's rounds, for report
	SideReport      = "html"        // report's page
)

// SideFile is the path of the plan's side file of that kind.
func SideFile(planPath, kind string) string { return planPath + "." + kind }
