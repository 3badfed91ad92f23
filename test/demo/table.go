package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// printWide prints resource as `kubectl get <resource> -o wide` does: the API server's own
// table (the CRD's printer columns, all priorities).
func printWide(ctx context.Context, cfg *rest.Config, resource string) error {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	url := strings.TrimSuffix(cfg.Host, "/") + "/apis/operator.aicr.run/v1alpha1/" + resource + "?includeObject=None"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := httpClient.Do(req)
	if err != nil {
		return fmt.Errorf("get %s: %w", resource, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("get %s: %s %s", resource, resp.Status, body)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil {
		return fmt.Errorf("decode %s table: %w", resource, err)
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 3, ' ', 0)
	cols := make([]string, len(table.ColumnDefinitions))
	for i, c := range table.ColumnDefinitions {
		cols[i] = strings.ToUpper(c.Name)
	}
	_, _ = fmt.Fprintln(w, strings.Join(cols, "\t"))
	for _, row := range table.Rows {
		cells := make([]string, len(row.Cells))
		for i, c := range row.Cells {
			cells[i] = fmt.Sprint(c)
			if c == nil {
				cells[i] = "<none>" // as kubectl prints an absent field
			}
		}
		_, _ = fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	console.printf("    $ kubectl get %s -o wide\n", resource)
	indent(b.String())
	return nil
}
