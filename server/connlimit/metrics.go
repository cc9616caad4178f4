package connlimit

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers the connections' metrics in reg.
func (s *Listener) Register(reg prometheus.Registerer) error {
	collectors := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "wploadmore_connections_open",
			Help: "Client connections open, at most -max-conns.",
		}, func() float64 { s.mu.Lock(); defer s.mu.Unlock(); return float64(s.open) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "wploadmore_connections_evicted_total",
			Help: "Idle connections closed to make room for a new one, at -max-conns or at its client's -max-conns-per-client.",
		}, func() float64 { return float64(s.evicted.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "wploadmore_connections_refused_total",
			Help: "New connections closed at once: their client held -max-conns-per-client connections, none of them idle.",
		}, func() float64 { return float64(s.refused.Load()) }),
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("connection metrics: %w", err)
		}
	}
	return nil
}
