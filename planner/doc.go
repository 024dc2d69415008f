// Package planner turns a trace into Echo's plan (package plan): it finds the host/device
// buffer pairs linked by whole-buffer copies, the program's loop, each pair's share of it and
// why every other pair or copy was refused (Analyze); it prices each strategy (Predict,
// Forecast) and keeps the figures in the plan (Recount, which also measures this host's
// first-touch rate where a pair needs it).
package planner
