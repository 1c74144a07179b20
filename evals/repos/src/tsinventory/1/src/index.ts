export { ApiError, CatalogueClient, type ApiOptions } from "./api";
export { describeEvent, quantityDelta, type InventoryEvent } from "./events";
export { formatMoney, formatQuantity, formatReport } from "./format";
export { Inventory } from "./inventory";
export { collectReports, lowStockSkus, printReports, type ReportOptions } from "./report";
export * from "./models";
export { syncAll, type SyncResult } from "./sync";
export { applyDiscount, fromCents, sumCents, toCents } from "./utils/money";
