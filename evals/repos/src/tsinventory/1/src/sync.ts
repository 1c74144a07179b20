import { CatalogueClient } from "./api";
import { Inventory } from "./inventory";
import type { Warehouse } from "./models";

export interface SyncResult {
  products: number;
  warehouses: number;
  levels: number;
}

export async function loadProducts(client: CatalogueClient, inventory: Inventory): Promise<number> {
  const products = await client.fetchProducts();
  let added = 0;
  for (const product of products) {
    if (!product.discontinued) {
      inventory.addProduct(product);
      added += 1;
    }
  }
  return added;
}

export async function loadWarehouse(
  client: CatalogueClient,
  inventory: Inventory,
  warehouse: Warehouse,
): Promise<number> {
  const levels = await client.fetchStock(warehouse.id);
  for (const level of levels) {
    inventory.setLevel(level);
  }
  return levels.length;
}

export async function syncAll(client: CatalogueClient): Promise<[Inventory, SyncResult]> {
  const inventory = new Inventory();
  const products = await loadProducts(client, inventory);
  const warehouses = await client.fetchWarehouses();
  let levels = 0;
  for (const warehouse of warehouses) {
    levels += await loadWarehouse(client, inventory, warehouse);
  }
  return [inventory, { products, warehouses: warehouses.length, levels }];
}
