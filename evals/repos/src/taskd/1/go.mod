module github.com/editpred-fixtures/taskd

go 1.19
