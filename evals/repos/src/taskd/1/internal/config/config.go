package config

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// Config holds the server settings, read from TASKD_* environment variables.
type Config struct {
	Addr         string
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	MaxTasks     int
	LogRequests  bool
}

// Default returns the settings used when no variable is set.
func Default() Config {
	return Config{
		Addr:         ":8080",
		ReadTimeout:  5 * time.Second,
		WriteTimeout: 10 * time.Second,
		MaxTasks:     1000,
		LogRequests:  true,
	}
}

// Load starts from Default and applies the environment.
func Load() (Config, error) {
	cfg := Default()
	if addr := os.Getenv("TASKD_ADDR"); addr != "" {
		cfg.Addr = addr
	}
	if raw := os.Getenv("TASKD_READ_TIMEOUT"); raw != "" {
		d, err := time.ParseDuration(raw)
		if err != nil {
			return Config{}, fmt.Errorf("TASKD_READ_TIMEOUT: %w", err)
		}
		cfg.ReadTimeout = d
	}
	if raw := os.Getenv("TASKD_WRITE_TIMEOUT"); raw != "" {
		d, err := time.ParseDuration(raw)
		if err != nil {
			return Config{}, fmt.Errorf("TASKD_WRITE_TIMEOUT: %w", err)
		}
		cfg.WriteTimeout = d
	}
	if raw := os.Getenv("TASKD_MAX_TASKS"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n <= 0 {
			return Config{}, fmt.Errorf("TASKD_MAX_TASKS: want a positive integer, got %q", raw)
		}
		cfg.MaxTasks = n
	}
	if raw := os.Getenv("TASKD_LOG_REQUESTS"); raw != "" {
		on, err := strconv.ParseBool(raw)
		if err != nil {
			return Config{}, fmt.Errorf("TASKD_LOG_REQUESTS: %w", err)
		}
		cfg.LogRequests = on
	}
	return cfg, nil
}
