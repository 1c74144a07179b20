import { fromCents } from "./utils/money";
import type { StockReport } from "./models";

export function formatMoney(cents: number): string {
  const amount = fromCents(cents);
  return amount.toLocaleString("en-US", { style: "currency", currency: "USD" });
}

export function formatQuantity(quantity: number, unit = "pcs"): string {
  return `${quantity.toLocaleString("en-US")} ${unit}`;
}

export function formatReport(report: StockReport): string {
  const lines = [
    `Warehouse ${report.warehouseId}`,
    `  units: ${formatQuantity(report.totalUnits)}`,
    `  value: ${formatMoney(report.totalValueCents)}`,
  ];
  if (report.lowStock.length > 0) {
    lines.push(`  low stock: ${report.lowStock.join(", ")}`);
  }
  return lines.join("\n");
}

export function padRight(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}
