import { isLow, type Product, type Sku, type StockLevel, type StockReport } from "./models";
import { formatMoney } from "./format";
import { sumCents } from "./utils/money";

export class Inventory {
  private products = new Map<Sku, Product>();
  private levels = new Map<string, StockLevel>();

  private static key(sku: Sku, warehouseId: string): string {
    return `${warehouseId}/${sku}`;
  }

  addProduct(product: Product): void {
    if (this.products.has(product.sku)) {
      throw new Error(`duplicate product ${product.sku}`);
    }
    this.products.set(product.sku, product);
  }

  product(sku: Sku): Product {
    const product = this.products.get(sku);
    if (!product) {
      throw new Error(`unknown product ${sku}`);
    }
    return product;
  }

  setLevel(level: StockLevel): void {
    this.product(level.sku);
    this.levels.set(Inventory.key(level.sku, level.warehouseId), level);
  }

  adjust(sku: Sku, warehouseId: string, delta: number): StockLevel {
    const key = Inventory.key(sku, warehouseId);
    const level = this.levels.get(key);
    if (!level) {
      throw new Error(`no stock of ${sku} in ${warehouseId}`);
    }
    const quantity = level.quantity + delta;
    if (quantity < 0) {
      throw new Error(`cannot take ${-delta} of ${sku}: only ${level.quantity} left`);
    }
    const updated = { ...level, quantity };
    this.levels.set(key, updated);
    return updated;
  }

  levelsIn(warehouseId: string): StockLevel[] {
    return [...this.levels.values()].filter((level) => level.warehouseId === warehouseId);
  }

  report(warehouseId: string): StockReport {
    const levels = this.levelsIn(warehouseId);
    return {
      warehouseId,
      totalUnits: levels.reduce((total, level) => total + level.quantity, 0),
      totalValueCents: sumCents(
        levels.map((level) => level.quantity * this.product(level.sku).unitPriceCents),
      ),
      lowStock: levels.filter(isLow).map((level) => level.sku),
    };
  }

  describe(sku: Sku): string {
    const product = this.product(sku);
    return `${product.name} (${product.sku}) at ${formatMoney(product.unitPriceCents)}`;
  }
}
