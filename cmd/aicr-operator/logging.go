package main

import (
	"flag"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// logFlags are controller-runtime's zap flags (--zap-log-level, --zap-encoder, --zap-devel,
// --zap-stacktrace-level, --zap-time-encoding) bound next to the operator's own flags.
type logFlags struct {
	fs   *flag.FlagSet
	opts zap.Options
}

// bindLogFlags registers controller-runtime's zap flags on fs.
func bindLogFlags(fs *flag.FlagSet) *logFlags {
	l := &logFlags{fs: fs}
	l.opts.BindFlags(fs)
	return l
}

// logger builds the operator's logger once fs is parsed. --zap-log-level, when given, wins over
// the chart's --log-level; --zap-devel alone keeps its debug default unless --log-level is given.
func (l *logFlags) logger(level string) logr.Logger {
	opts := l.opts
	if opts.Level == nil && (!opts.Development || l.set("log-level")) {
		opts.Level = logLevel(level)
	}
	return zap.New(zap.UseFlagOptions(&opts))
}

// set reports whether the flag name was given on the command line.
func (l *logFlags) set(name string) bool {
	found := false
	l.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// setLogger makes log the logger of controller-runtime and of klog, so client-go's, leader
// election's and the manager's messages come out in one format, at one level.
func setLogger(log logr.Logger) {
	ctrl.SetLogger(log)
	klog.SetLogger(log)
}

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
