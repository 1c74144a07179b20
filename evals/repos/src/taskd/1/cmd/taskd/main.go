package main

import (
	"log"
	"net/http"
	"os"

	"github.com/editpred-fixtures/taskd/internal/api"
	"github.com/editpred-fixtures/taskd/internal/config"
	"github.com/editpred-fixtures/taskd/internal/store"
)

func main() {
	cfg, err := config.Load()
	if err != nil {
		log.Fatalf("taskd: %v", err)
	}
	logger := log.New(os.Stderr, "taskd ", log.LstdFlags)

	var handler http.Handler = api.NewServer(store.NewMemory(), cfg.MaxTasks)
	handler = api.Recover(handler, logger)
	if cfg.LogRequests {
		handler = api.Logging(handler, logger)
	}

	server := &http.Server{
		Addr:         cfg.Addr,
		Handler:      handler,
		ReadTimeout:  cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout,
	}
	logger.Printf("listening on %s", cfg.Addr)
	if err := server.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		logger.Fatalf("server stopped: %v", err)
	}
}
