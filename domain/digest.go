package domain

// digestSchemaVersion is the schema of the desiredStateDigest input (PLAN-4).
const digestSchemaVersion = 1

// DesiredStateDigest computes a plan's desiredStateDigest (PLAN-4):
// "sha256:" + hex SHA-256 over the canonical JSON (CanonicalJSON) of
//
//	{"schemaVersion":1,"releases":[{"id","namespace","chart":{"repository",
//	 "name","version","manifestDigest"},"contentDigest","values","policy":
//	 {"createNamespace","serverSideApply"},"dependsOn":[...]}, ...]}
//
// with releases in plan order. Beyond the fields PLAN-4 names (ID, namespace,
// chart repository, manifest digest, values, engine policy, graph) it also
// covers chart name, version and a local chart's content digest, so a plan
// built offline (no manifest digest yet) still changes when the chart does.
// The runtime UID, AICR version and recipe references are not part of it, nor
// is the plan document schema: "schemaVersion" is the schema of this digest
// input, which schema 2 of the document left unchanged, so the same inputs
// keep their digest across document schemas.
func DesiredStateDigest(releases []Release) (string, error) {
	return Digest(map[string]any{
		"schemaVersion": int64(digestSchemaVersion),
		"releases":      digestReleases(releases, true),
	})
}

func digestReleases(releases []Release, withValues bool) []any {
	out := make([]any, len(releases))
	for i, r := range releases {
		deps := make([]any, len(r.DependsOn))
		for j, d := range r.DependsOn {
			deps[j] = d
		}
		m := map[string]any{
			"id":        r.ID,
			"namespace": r.Namespace,
			"chart": map[string]any{
				"repository":     r.Chart.Repository,
				"name":           r.Chart.Name,
				"version":        r.Chart.Version,
				"manifestDigest": r.Chart.ManifestDigest,
			},
			"contentDigest": r.ContentDigest,
			"policy": map[string]any{
				"createNamespace": r.Policy.CreateNamespace,
				"serverSideApply": r.Policy.ServerSideApply,
			},
			"dependsOn": deps,
		}
		if withValues {
			m["values"] = r.Values
		}
		out[i] = m
	}
	return out
}
