package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/editpred-fixtures/taskd/internal/model"
	"github.com/editpred-fixtures/taskd/internal/store"
)

// Server serves the task API on /tasks and /tasks/{id}.
type Server struct {
	store    store.Store
	maxTasks int
}

func NewServer(s store.Store, maxTasks int) *Server {
	return &Server{store: s, maxTasks: maxTasks}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.Trim(r.URL.Path, "/")
	switch {
	case path == "tasks" && r.Method == http.MethodGet:
		s.listTasks(w, r)
	case path == "tasks" && r.Method == http.MethodPost:
		s.createTask(w, r)
	case strings.HasPrefix(path, "tasks/"):
		id, err := strconv.ParseInt(strings.TrimPrefix(path, "tasks/"), 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid task id")
			return
		}
		switch r.Method {
		case http.MethodGet:
			s.getTask(w, id)
		case http.MethodPut:
			s.updateTask(w, r, id)
		case http.MethodDelete:
			s.deleteTask(w, id)
		default:
			writeError(w, http.StatusMethodNotAllowed, "method not allowed")
		}
	default:
		writeError(w, http.StatusNotFound, "not found")
	}
}

func (s *Server) listTasks(w http.ResponseWriter, r *http.Request) {
	var filter store.Filter
	if raw := r.URL.Query().Get("status"); raw != "" {
		status, err := model.ParseStatus(raw)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		filter.Status = &status
	}
	filter.Assignee = r.URL.Query().Get("assignee")
	tasks, err := s.store.List(filter)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, tasks)
}

func (s *Server) createTask(w http.ResponseWriter, r *http.Request) {
	var task model.Task
	if err := decodeJSON(r, &task); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	if err := task.Validate(); err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	existing, err := s.store.List(store.Filter{})
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if len(existing) >= s.maxTasks {
		writeError(w, http.StatusInsufficientStorage, "task limit reached")
		return
	}
	created, err := s.store.Create(task)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, created)
}

func (s *Server) getTask(w http.ResponseWriter, id int64) {
	task, err := s.store.Get(id)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, task)
}

func (s *Server) updateTask(w http.ResponseWriter, r *http.Request, id int64) {
	var task model.Task
	if err := decodeJSON(r, &task); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	task.ID = id
	updated, err := s.store.Update(task)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, updated)
}

func (s *Server) deleteTask(w http.ResponseWriter, id int64) {
	err := s.store.Delete(id)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
