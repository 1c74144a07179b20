import { formatReport } from "./format";
import { Inventory } from "./inventory";
import type { StockReport, Warehouse } from "./models";

export interface ReportOptions {
  onlyLowStock: boolean;
  write: (line: string) => void;
}

const defaultOptions: ReportOptions = {
  onlyLowStock: false,
  write: (line) => console.log(line),
};

export function collectReports(inventory: Inventory, warehouses: Warehouse[]): StockReport[] {
  const reports: StockReport[] = [];
  for (const warehouse of warehouses) {
    reports.push(inventory.report(warehouse.id));
  }
  return reports;
}

export function printReports(
  inventory: Inventory,
  warehouses: Warehouse[],
  options: Partial<ReportOptions> = {},
): number {
  const { onlyLowStock, write } = { ...defaultOptions, ...options };
  let printed = 0;
  for (const report of collectReports(inventory, warehouses)) {
    if (onlyLowStock && report.lowStock.length === 0) {
      continue;
    }
    write(formatReport(report));
    printed += 1;
  }
  return printed;
}

export function lowStockSkus(inventory: Inventory, warehouses: Warehouse[]): Set<string> {
  const skus = new Set<string>();
  for (const report of collectReports(inventory, warehouses)) {
    report.lowStock.forEach((sku) => skus.add(sku));
  }
  return skus;
}
