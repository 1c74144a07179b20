package store

import (
	"sort"
	"sync"
	"time"

	"github.com/editpred-fixtures/taskd/internal/model"
)

// Memory is an in-memory Store, used by tests and the demo server.
type Memory struct {
	mu     sync.RWMutex
	nextID int64
	tasks  map[int64]model.Task
	now    func() time.Time
}

// NewMemory returns an empty store.
func NewMemory() *Memory {
	return &Memory{nextID: 1, tasks: make(map[int64]model.Task), now: time.Now}
}

func (m *Memory) Create(task model.Task) (model.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	task.ID = m.nextID
	m.nextID++
	task.CreatedAt = m.now()
	task.UpdatedAt = task.CreatedAt
	m.tasks[task.ID] = task
	return task, nil
}

func (m *Memory) Get(id int64) (model.Task, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	task, ok := m.tasks[id]
	if !ok {
		return model.Task{}, ErrNotFound
	}
	return task, nil
}

func (m *Memory) Update(task model.Task) (model.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.tasks[task.ID]
	if !ok {
		return model.Task{}, ErrNotFound
	}
	task.CreatedAt = old.CreatedAt
	task.UpdatedAt = m.now()
	m.tasks[task.ID] = task
	return task, nil
}

func (m *Memory) Delete(id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[id]; !ok {
		return ErrNotFound
	}
	delete(m.tasks, id)
	return nil
}

func (m *Memory) List(filter Filter) ([]model.Task, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	tasks := make([]model.Task, 0, len(m.tasks))
	for _, task := range m.tasks {
		if filter.Status != nil && task.Status != *filter.Status {
			continue
		}
		if filter.Assignee != "" && task.Assignee != filter.Assignee {
			continue
		}
		tasks = append(tasks, task)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	if filter.Limit > 0 && len(tasks) > filter.Limit {
		tasks = tasks[:filter.Limit]
	}
	return tasks, nil
}
