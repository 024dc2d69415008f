package tracer

//go:generate go tool bpf2go -cc clang -cflags "-O2 -g -Wall -Werror -Wpadded -Wpacked" -target amd64,arm64 -type echo_event echo ../bpf/echo.bpf.c -- -I../bpf
