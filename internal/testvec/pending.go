package testvec

// Feature names a capability that some corpus cases need and that is not
// built yet. Each has exactly one list of case ids below.
type Feature string

// pending maps each missing feature to the ids of the corpus cases that need
// it. Delete a feature's entry when it lands: its cases then run.
var pending = map[Feature][]string{}

// Pending reports whether the corpus case id waits on a missing feature, and
// which one.
func Pending(id string) (Feature, bool) {
	for f, ids := range pending {
		for _, x := range ids {
			if x == id {
				return f, true
			}
		}
	}
	return "", false
}

// PendingIDs returns the case ids that wait on feature f.
func PendingIDs(f Feature) []string { return pending[f] }
