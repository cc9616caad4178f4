package metrics

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wploadmore/wploadmore/server/push"
)

// ObservePush registers the change events' metrics, read from sub (a
// *push.Subscriber) at each scrape: events received, malformed ones
// ignored, gaps, refreshes by kind, the last event's age, the mode, and
// whether the bounds are stretched. It returns the registry's error.
func (m *Metrics) ObservePush(sub interface{ Stats() push.Stats }) error {
	counter := func(name, help string, v func(push.Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v(sub.Stats())) })
	}
	for _, c := range []prometheus.Collector{
		counter("wploadmore_push_events_total", "Change events received from the WordPress plugin and handed on.",
			func(s push.Stats) uint64 { return s.Received }),
		counter("wploadmore_push_malformed_events_total", "Messages on the events channel ignored as malformed or forged.",
			func(s push.Stats) uint64 { return s.Malformed }),
		counter("wploadmore_push_gaps_total", "Gaps in the events' numbers (messages lost), each refreshing everything once.",
			func(s push.Stats) uint64 { return s.Gaps }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "wploadmore_push_last_event_age_seconds",
			Help: "Seconds since the last change event arrived; -1 before the first.",
		}, func() float64 {
			if last := sub.Stats().LastEvent; !last.IsZero() {
				return time.Since(last).Seconds()
			}
			return -1
		}),
		refreshes{sub: sub, desc: prometheus.NewDesc("wploadmore_push_refreshes_total",
			"Change events handed on to refresh what they name, by kind (an event counts once for each of its kinds; a heartbeat refreshes nothing), and refreshes of everything (kind all: a gap, a subscription made again).",
			[]string{"kind"}, nil)},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "wploadmore_push_stretched",
			Help: "1 while the listings, sticky posts and terms are read again on the pushed bound (a minute) rather than their own: pushed, and an event or heartbeat arrived within -push-heartbeat-window.",
		}, func() float64 {
			if sub.Stats().Stretched {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "wploadmore_push_pushed",
			Help: "1 while the server relies on change events (pushed), 0 while it polls.",
		}, func() float64 {
			if sub.Stats().Mode == push.Pushed {
				return 1
			}
			return 0
		}),
	} {
		if err := m.registry.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// refreshes is wploadmore_push_refreshes_total, one series a kind.
type refreshes struct {
	sub  interface{ Stats() push.Stats }
	desc *prometheus.Desc
}

func (r refreshes) Describe(ch chan<- *prometheus.Desc) { ch <- r.desc }

func (r refreshes) Collect(ch chan<- prometheus.Metric) {
	counts := r.sub.Stats().Refreshes
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		ch <- prometheus.MustNewConstMetric(r.desc, prometheus.CounterValue, float64(counts[k]), k)
	}
}
