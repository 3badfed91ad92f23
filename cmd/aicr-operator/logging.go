package main

import "go.uber.org/zap/zapcore"

// logLevel maps the chart's operator.logLevel onto zap levels; unknown values mean info.
func logLevel(level string) zapcore.Level {
	switch level {
	case "debug":
		return zapcore.DebugLevel
	case "error":
		return zapcore.ErrorLevel
	default:
		return zapcore.InfoLevel
	}
}
