export type Sku = string;

export type Category = "hardware" | "electrical" | "garden" | "paint";

export interface Product {
  sku: Sku;
  name: string;
  category: Category;
  unitPriceCents: number;
  discontinued?: boolean;
}

export interface StockLevel {
  sku: Sku;
  warehouseId: string;
  quantity: number;
  reorderPoint: number;
}

export interface Warehouse {
  id: string;
  name: string;
  city: string;
  capacity: number;
}

export interface StockReport {
  warehouseId: string;
  totalUnits: number;
  totalValueCents: number;
  lowStock: Sku[];
}

export function isLow(level: StockLevel): boolean {
  return level.quantity <= level.reorderPoint;
}
