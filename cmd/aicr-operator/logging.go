package main

import (
	"flag"
	"fmt"
	"strconv"

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
	opts := l.options(level)
	return zap.New(zap.UseFlagOptions(&opts))
}

// options are the zap options once fs is parsed, the level chosen as logger says.
func (l *logFlags) options(level string) zap.Options {
	opts := l.opts
	if opts.Level == nil && (!opts.Development || l.set("log-level")) {
		opts.Level = logLevel(level)
	}
	return opts
}

// maxVerbosity is the highest klog -v the operator sets (client-go logs up to V(10)).
const maxVerbosity = 10

// klogVerbosity is the klog -v that passes on exactly the V-levels the logger prints: logr's
// V(n) is zap level -n, so --zap-log-level=debug is -v=1 and --zap-log-level=4 is -v=4. klog
// filters by its own -v before a message reaches the logger.
func (l *logFlags) klogVerbosity(level string) int {
	opts := l.options(level)
	enabled := opts.Level
	if enabled == nil { // --zap-devel alone: controller-runtime's development default, debug
		enabled = zapcore.DebugLevel
	}
	v := 0
	for v < maxVerbosity && enabled.Enabled(zapcore.Level(-(v + 1))) {
		v++
	}
	return v
}

// set reports whether the flag name was given on the command line.
func (l *logFlags) set(name string) bool {
	found := false
	l.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// setLogger makes log the logger of controller-runtime and of klog, so client-go's, leader
// election's and the manager's messages come out in one format, at one level: klog's -v is set
// to verbosity (klogVerbosity), so klog passes on the V-levels log prints.
func setLogger(log logr.Logger, verbosity int) error {
	ctrl.SetLogger(log)
	klog.SetLogger(log)
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	if err := fs.Set("v", strconv.Itoa(verbosity)); err != nil {
		return fmt.Errorf("set klog verbosity %d: %w", verbosity, err)
	}
	return nil
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
