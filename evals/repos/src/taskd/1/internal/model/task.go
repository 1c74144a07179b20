package model

import (
	"errors"
	"strings"
	"time"
)

// Status is the lifecycle state of a task.
type Status int

const (
	StatusTodo Status = iota
	StatusInProgress
	StatusDone
)

func (s Status) String() string {
	switch s {
	case StatusTodo:
		return "todo"
	case StatusInProgress:
		return "in-progress"
	case StatusDone:
		return "done"
	default:
		return "unknown"
	}
}

// ParseStatus is the inverse of Status.String.
func ParseStatus(text string) (Status, error) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "todo":
		return StatusTodo, nil
	case "in-progress":
		return StatusInProgress, nil
	case "done":
		return StatusDone, nil
	}
	return 0, errors.New("unknown status: " + text)
}

// Task is one item on the board.
type Task struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	Status    Status    `json:"status"`
	Assignee  string    `json:"assignee,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Validate reports the first problem with a task submitted by a client.
func (t *Task) Validate() error {
	if strings.TrimSpace(t.Title) == "" {
		return errors.New("title must not be empty")
	}
	if len(t.Title) > 200 {
		return errors.New("title is longer than 200 characters")
	}
	return nil
}
