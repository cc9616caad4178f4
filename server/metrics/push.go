package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wploadmore/wploadmore/server/push"
)

// ObservePush registers the change events' metrics, read from sub (a
// *push.Subscriber) at
// each scrape: events received, malformed ones ignored, gaps, the last
// event's age, and the mode. It returns the registry's error.
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
