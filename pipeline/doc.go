// Package pipeline is Echo's binary path as one sequence, for the commands that wrap it:
// trace a program, plan from the trace, validate the candidates, calibrate the survivors
// (Optimize); calibrate a plan and record what it saves (Calibrate); decide what a plan
// deploys (Deploy) and keep it for the next run of the same plan (KeptDeployment, the
// deployment cache); and, for the source path's rewrite, which device to target and the
// copy time a trace gives each source line (RewriteDevice, LoadProfile). It holds the order
// of the steps and the policy between them: what stops the pipeline, what a step's outcome
// leaves for the next. It prints nothing: progress goes through a callback, and what to show
// is the caller's (cmd/echoctl).
package pipeline
