import type { Product, StockLevel, Warehouse } from "./models";

export interface ApiOptions {
  baseUrl: string;
  token?: string;
  timeoutMs?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export class CatalogueClient {
  constructor(private readonly options: ApiOptions) {}

  private async request<T>(path: string): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs ?? 10_000);
    try {
      const response = await fetch(`${this.options.baseUrl}${path}`, {
        headers: this.options.token ? { Authorization: `Bearer ${this.options.token}` } : {},
        signal: controller.signal,
      });
      if (!response.ok) {
        throw new ApiError(response.status, `GET ${path} failed: ${response.statusText}`);
      }
      return (await response.json()) as T;
    } finally {
      clearTimeout(timer);
    }
  }

  fetchProducts(): Promise<Product[]> {
    return this.request<Product[]>("/products");
  }

  fetchWarehouses(): Promise<Warehouse[]> {
    return this.request<Warehouse[]>("/warehouses");
  }

  fetchStock(warehouseId: string): Promise<StockLevel[]> {
    return this.request<StockLevel[]>(`/warehouses/${encodeURIComponent(warehouseId)}/stock`);
  }
}
