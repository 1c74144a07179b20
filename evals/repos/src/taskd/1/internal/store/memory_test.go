package store

import (
	"errors"
	"testing"

	"github.com/editpred-fixtures/taskd/internal/model"
)

func TestCreateAssignsIDs(t *testing.T) {
	m := NewMemory()
	first, _ := m.Create(model.Task{Title: "write docs"})
	second, _ := m.Create(model.Task{Title: "review"})
	if first.ID != 1 || second.ID != 2 {
		t.Fatalf("got ids %d and %d, want 1 and 2", first.ID, second.ID)
	}
}

func TestGetMissing(t *testing.T) {
	m := NewMemory()
	if _, err := m.Get(42); !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

func TestListFiltersByStatus(t *testing.T) {
	m := NewMemory()
	m.Create(model.Task{Title: "a", Status: model.StatusDone})
	m.Create(model.Task{Title: "b", Status: model.StatusTodo})
	m.Create(model.Task{Title: "c", Status: model.StatusDone})
	done := model.StatusDone
	tasks, err := m.List(Filter{Status: &done})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0].Title != "a" || tasks[1].Title != "c" {
		t.Fatalf("unexpected tasks: %+v", tasks)
	}
}
