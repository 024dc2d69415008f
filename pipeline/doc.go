// Package pipeline is Echo's binary path as one sequence, for the commands that wrap it:
// trace a program into its file (RecordTrace), plan from a trace (PlanFromTrace), validate
// the candidates, calibrate the survivors (Optimize, with OptimizePaths saying where it
// writes); calibrate a plan and record what it saves (Calibrate, PairsToCalibrate); decide
// what a plan deploys (Deploy, ForRun) and keep it for the next run of the same plan
// (KeptDeployment, the deployment cache); write a trace's timeline (ExportTrace) and a
// plan's page (WriteReport); and, for the source path's rewrite, which device to target and
// the copy time a trace gives each source line (RewriteDevice, LoadProfile). It holds the
// order of the steps and the policy between them: what stops the pipeline, what a step's
// outcome leaves for the next, which file a step may write. It prints nothing: progress goes
// through a callback, and what to show is the caller's (cmd/echoctl).
package pipeline
