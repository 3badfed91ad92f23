package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/NVIDIA/aicr/domain"
	"github.com/NVIDIA/aicr/ports"
)

// chartView is a release's chart in the shape of expected-releases.json.
type chartView struct {
	RepoURL string `json:"repoURL,omitempty"`
	Name    string `json:"name"`
	Version string `json:"version"`
}

// releaseView is one release in the shape of expected-releases.json.
type releaseView struct {
	Order         int            `json:"order"`
	Name          string         `json:"name"`
	Component     string         `json:"component"`
	Namespace     string         `json:"namespace"`
	Kind          string         `json:"kind"`
	Chart         chartView      `json:"chart"`
	ContentDigest string         `json:"contentDigest,omitempty"`
	DependsOn     []string       `json:"dependsOn,omitempty"`
	Values        map[string]any `json:"values"`
	ValuesDigest  string         `json:"valuesDigest"`
}

// stepView is one step of the transition.
type stepView struct {
	Action     string   `json:"action"`
	Release    string   `json:"release"`
	Assessment string   `json:"assessment,omitempty"`
	Reasons    []string `json:"reasons,omitempty"`
}

// planView is what `kubectl aicr plan` prints.
type planView struct {
	DesiredStateDigest string        `json:"desiredStateDigest"`
	AICRVersion        string        `json:"aicrVersion"`
	Releases           []releaseView `json:"releases"`
	FromDigest         string        `json:"fromDesiredStateDigest,omitempty"`
	ApprovalRequired   *bool         `json:"approvalRequired,omitempty"`
	Steps              []stepView    `json:"steps,omitempty"`
}

func newPlanView(p *domain.Plan, from *domain.Plan, tr *domain.Transition) (planView, error) {
	v := planView{DesiredStateDigest: p.Digest, AICRVersion: p.AICRVersion}
	for i, r := range p.Releases {
		d, err := domain.Digest(r.Values)
		if err != nil {
			return planView{}, fmt.Errorf("digest values of %s: %w", r.ID, err)
		}
		v.Releases = append(v.Releases, releaseView{
			Order: i + 1, Name: r.ID, Component: r.Component, Namespace: r.Namespace, Kind: string(r.Kind),
			Chart:         chartView{RepoURL: r.Chart.Repository, Name: r.Chart.Name, Version: r.Chart.Version},
			ContentDigest: r.ContentDigest, DependsOn: r.DependsOn, Values: r.Values, ValuesDigest: d,
		})
	}
	if tr != nil {
		v.FromDigest = from.Digest
		v.ApprovalRequired = &tr.ApprovalRequired
		for _, s := range tr.Steps {
			v.Steps = append(v.Steps, stepView{Action: string(s.Operation), Release: s.Release.String(),
				Assessment: string(s.Assessment), Reasons: s.Reasons})
		}
	}
	return v, nil
}

func (v planView) writeText(w io.Writer) error {
	out := &errWriter{w: w}
	out.printf("Plan:     %s\nAICR:     %s\nReleases: %d\n\n", v.DesiredStateDigest, v.AICRVersion, len(v.Releases))
	tw := &errWriter{w: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
	tw.printf("ORDER\tRELEASE\tNAMESPACE\tCHART\tVERSION\tVALUES DIGEST\n")
	for _, r := range v.Releases {
		tw.printf("%d\t%s\t%s\t%s\t%s\t%s\n", r.Order, r.Name, r.Namespace, chartRef(r), r.Chart.Version, r.ValuesDigest)
	}
	tw.flush()
	if v.ApprovalRequired != nil {
		approval := "no approval required"
		if *v.ApprovalRequired {
			approval = "approval required"
		}
		out.printf("\nTransition: %s -> %s (%s)\n\n", v.FromDigest, v.DesiredStateDigest, approval)
		tw.printf("STEP\tOPERATION\tRELEASE\tREASONS\n")
		for i, s := range v.Steps {
			tw.printf("%d/%d\t%s\t%s\t%s\n", i+1, len(v.Steps), s.Action, s.Release, strings.Join(s.Reasons, "; "))
		}
		tw.flush()
	}
	if err := errors.Join(out.err, tw.err); err != nil {
		return fmt.Errorf("write plan: %w", err)
	}
	return nil
}

// errWriter keeps the first write error so a table is written without a
// check after every line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *errWriter) flush() {
	if f, ok := e.w.(*tabwriter.Writer); ok && e.err == nil {
		e.err = f.Flush()
	}
}

// chartRef renders a chart reference as Helm takes it.
func chartRef(r releaseView) string {
	switch {
	case r.Kind == string(ports.KindLocal):
		return "./" + r.Name + " (local)"
	case strings.HasPrefix(r.Chart.RepoURL, "oci://"):
		return r.Chart.RepoURL + "/" + r.Chart.Name
	}
	return r.Chart.RepoURL + " " + r.Chart.Name
}
