package store

import (
	"errors"

	"github.com/editpred-fixtures/taskd/internal/model"
)

// ErrNotFound is returned when no task has the requested id.
var ErrNotFound = errors.New("task not found")

// Filter selects tasks in List; zero values match everything.
type Filter struct {
	Status   *model.Status
	Assignee string
	Limit    int
}

// Store keeps tasks. Implementations must be safe for concurrent use.
type Store interface {
	Create(task model.Task) (model.Task, error)
	Get(id int64) (model.Task, error)
	Update(task model.Task) (model.Task, error)
	Delete(id int64) error
	List(filter Filter) ([]model.Task, error)
}
