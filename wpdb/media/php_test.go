package media

import "testing"

func TestPHPRound(t *testing.T) {
	tests := []struct {
		in, want float64
	}{
		{0.5, 1}, {1.5, 2}, {2.5, 3}, {-2.5, -3}, {1552.4999999999998, 1553}, {767.4999999999999, 768},
		{0.49999999999999994, 1}, {1.4999999999999998, 2}, {1552.4, 1552}, {0, 0}, {1e15 + 0.5, 1e15 + 0.5},
	}
	for _, tt := range tests {
		if got := phpRound(tt.in); got != tt.want {
			t.Errorf("phpRound(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
