package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/NVIDIA/aicr/adapters/argocd"
	argov1 "github.com/NVIDIA/aicr/adapters/argocd/api/v1alpha1"
	"github.com/NVIDIA/aicr/adapters/kube/manager"
	"github.com/NVIDIA/aicr/ports"
	"github.com/NVIDIA/aicr/test/procstat"
)

// installWatch watches the engine namespace's Applications through the operator's initial
// install from this process and records each delivery with when it arrived and the operator
// process's CPU time read from /proc then. It only records: the deliveries are judged once it
// stopped (installUsage), so judging one never delays the next.
type installWatch struct {
	pid    int
	scheme *runtime.Scheme
	cancel context.CancelFunc
	// done closes when the watch ended; events and err are read only after.
	done   chan struct{}
	events []appEvent
	// err is why the watch ended before it was stopped.
	err error
}

// appEvent is one delivery of the watch: an Application as it was created or changed.
type appEvent struct {
	at      time.Time
	cpu     time.Duration
	created bool
	app     *argov1.Application
}

// installUsage is what the watch measured of the install, every time as this process received
// the deliveries.
type installUsage struct {
	// steps is the number of Applications the operator created and Argo CD reported ready.
	steps int
	// wall is from the first Application's creation to the last one ready; cpu is the operator's
	// CPU time over it.
	wall, cpu time.Duration
	// overhead holds, per step after the first in plan order, the time from the step before
	// ready to this step's Application created, sorted.
	overhead []time.Duration
}

// watchInstall starts watching the engine namespace, which must hold no Application yet.
func (d *demo) watchInstall(ctx context.Context) (*installWatch, error) {
	scheme, err := manager.NewScheme(argocd.AddToScheme)
	if err != nil {
		return nil, err
	}
	wc, err := client.NewWithWatch(d.cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	inEngine := client.InNamespace(d.argo.ArgoCDNamespace)
	var apps argov1.ApplicationList
	if err = wc.List(ctx, &apps, inEngine); err != nil {
		return nil, fmt.Errorf("list Applications: %w", err)
	}
	if len(apps.Items) > 0 {
		return nil, fmt.Errorf("%d Applications before the install", len(apps.Items))
	}
	events, err := wc.Watch(ctx, &apps, inEngine, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: apps.ResourceVersion}})
	if err != nil {
		return nil, fmt.Errorf("watch Applications: %w", err)
	}
	w := &installWatch{pid: d.procs[0].Pid(), scheme: scheme, done: make(chan struct{})}
	var watchCtx context.Context
	watchCtx, w.cancel = context.WithCancel(ctx)
	go func() {
		defer close(w.done)
		defer events.Stop()
		w.err = w.record(watchCtx, events.ResultChan())
	}()
	return w, nil
}

// record appends every delivery of Applications created or changed until ctx ends.
func (w *installWatch) record(ctx context.Context, events <-chan watch.Event) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			at := time.Now()
			if !ok {
				return errors.New("the API server ended the watch of Applications before the install did")
			}
			if ev.Type == watch.Error {
				return fmt.Errorf("watch of Applications: %w", apierrors.FromObject(ev.Object))
			}
			app, isApp := ev.Object.(*argov1.Application)
			if !isApp || (ev.Type != watch.Added && ev.Type != watch.Modified) {
				continue
			}
			cpu, err := procstat.CPUTime(w.pid)
			if err != nil {
				return err
			}
			w.events = append(w.events, appEvent{at: at, cpu: cpu, created: ev.Type == watch.Added, app: app})
		}
	}
}

// stop ends the watch and measures the install from what it recorded.
func (w *installWatch) stop(ctx context.Context) (installUsage, error) {
	w.cancel()
	<-w.done
	if w.err != nil {
		return installUsage{}, w.err
	}
	return w.usage(ctx)
}

// installStep is one Application of the install: its position in the plan, the delivery of
// its creation and the first delivery showing it ready.
type installStep struct {
	position       int
	created, ready *appEvent
}

// usage pairs each Application's creation with its first delivery that shows it ready as the
// operator judges a step (the Argo CD adapter's Status: synced to the revision its spec asks
// for, and Healthy).
func (w *installWatch) usage(ctx context.Context) (installUsage, error) {
	byName := map[string]*installStep{}
	for i := range w.events {
		ev := &w.events[i]
		st := byName[ev.app.Name]
		if st == nil {
			if !ev.created {
				return installUsage{}, fmt.Errorf("the watch saw Application %s changed before it saw it created", ev.app.Name)
			}
			position, err := planPosition(ev.app)
			if err != nil {
				return installUsage{}, err
			}
			st = &installStep{position: position, created: ev}
			byName[ev.app.Name] = st
		}
		if st.ready != nil {
			continue
		}
		ready, err := w.readyAsJudged(ctx, ev.app)
		if err != nil {
			return installUsage{}, err
		}
		if ready {
			st.ready = ev
		}
	}
	steps := make([]*installStep, 0, len(byName))
	for name, st := range byName {
		if st.ready == nil {
			return installUsage{}, fmt.Errorf("the watch never saw Application %s ready", name)
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return installUsage{}, errors.New("the watch saw no Application")
	}
	slices.SortFunc(steps, func(a, b *installStep) int { return a.position - b.position })
	first, last := steps[0].created, steps[0].ready
	u := installUsage{steps: len(steps)}
	for i, st := range steps {
		if st.created.at.Before(first.at) {
			first = st.created
		}
		if st.ready.at.After(last.at) {
			last = st.ready
		}
		if i > 0 {
			u.overhead = append(u.overhead, st.created.at.Sub(steps[i-1].ready.at))
		}
	}
	slices.Sort(u.overhead)
	u.wall, u.cpu = last.at.Sub(first.at), last.cpu-first.cpu
	return u, nil
}

// readyAsJudged reports whether the operator judges app's step done: the Argo CD adapter's
// Status of its release is ready, read from a client that holds app alone, as the watch
// delivered it.
func (w *installWatch) readyAsJudged(ctx context.Context, app *argov1.Application) (bool, error) {
	held := app.DeepCopy()
	held.ResourceVersion = ""
	c := fake.NewClientBuilder().WithScheme(w.scheme).WithObjects(held).Build()
	namespace, id, _ := strings.Cut(app.Name, ".") // argocd.ApplicationName
	st, err := argocd.NewEngine(c, nil, argocd.Config{Namespace: app.Namespace}).
		Status(ctx, ports.ReleaseRef{ID: id, Namespace: namespace})
	if err != nil {
		return false, fmt.Errorf("status of Application %s: %w", app.Name, err)
	}
	return st.Ready(), nil
}

// percentile is the p-th percentile (0-100) of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, max(0, (len(sorted)*p+99)/100-1))]
}

// measureInstall stops the install's watch and prints what it measured, and the operator
// process's memory now that its cache holds Argo CD's status of every Application.
func (d *demo) measureInstall(ctx context.Context) error {
	usage, err := d.installWatch.stop(ctx)
	if err != nil {
		return err
	}
	memory, err := procstat.Memory(d.procs[0].Pid())
	if err != nil {
		return err
	}
	d.initial.usage, d.initial.memory = usage, memory
	console.printf("    the install as a watch of the Applications in this process saw it: %d steps in %s, the operator's CPU time %s (%.1f%%); "+
		"from a step ready (synced, Healthy) to the next step's Application created: median %s, p95 %s\n",
		usage.steps, usage.wall.Round(time.Millisecond), usage.cpu, 100*usage.cpu.Seconds()/usage.wall.Seconds(),
		percentile(usage.overhead, 50).Round(time.Millisecond), percentile(usage.overhead, 95).Round(time.Millisecond))
	console.printf("    the operator process's memory after the install: RSS %.1f MiB, peak %.1f MiB (anonymous %.1f, file-mapped %.1f)\n",
		procstat.MiB(memory.VmRSS), procstat.MiB(memory.VmHWM), procstat.MiB(memory.RssAnon), procstat.MiB(memory.RssFile))
	return nil
}
