package wpdb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReplicaPick: reads go round robin over the healthy replicas only,
// and to the primary when none is healthy.
func TestReplicaPick(t *testing.T) {
	tests := []struct {
		name    string
		healthy []bool
		want    []string
	}{
		{"all healthy", []bool{true, true, true}, []string{"r1", "r2", "r3", "r1", "r2", "r3"}},
		{"one set aside", []bool{true, false, true}, []string{"r1", "r3", "r1", "r3"}},
		{"one left", []bool{false, true, false}, []string{"r2", "r2", "r2"}},
		{"none healthy", []bool{false, false, false}, []string{"primary", "primary"}},
		{"no replicas", nil, []string{"primary", "primary"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Store{primary: &target{name: "primary"}}
			for i, healthy := range tt.healthy {
				r := &target{name: "r" + string(rune('1'+i))}
				r.status.Store(&ReplicaStatus{Name: r.name, Healthy: healthy})
				s.replicas = append(s.replicas, r)
			}
			var got []string
			for range tt.want {
				got = append(got, s.pick().name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("picks (-want +got)\n%s", diff)
			}
		})
	}
}
