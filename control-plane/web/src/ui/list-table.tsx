// The table of a list page: it scrolls sideways on a phone, names its columns, and ends with
// an "Actions" column when the person may change the rows.
import type { ReactNode } from 'react';

interface ListTableProps {
  columns: string[];
  /** Whether the rows end with an actions cell. */
  actions?: boolean;
  /** The rows. */
  children: ReactNode;
}

export function ListTable({ columns, actions = false, children }: ListTableProps) {
  return (
    <div className="table-scroll">
      <table>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
