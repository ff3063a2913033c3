#pragma once

class QPushButton;
class QWidget;

namespace keel {

// A list above its "Load more" button, right-aligned, as one pane for a
// splitter: the lists that page by keyset (sagas, suspense cases) share it.
QWidget *pagedListPane(QWidget *list, QPushButton *more, QWidget *parent);

} // namespace keel
