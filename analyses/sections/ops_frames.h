/* ops_frames: the user Python frames of one trace file (python_function events), kept to
 * name the innermost user frame enclosing an operator call (section "ops").
 *
 * Only user frames are kept: a frame `FILE(LINE): FUNC` whose FILE is not the Python
 * library, an installed package (site-packages, dist-packages) or torch itself; built-ins
 * (`<built-in ...>`) and module markers (`nn.Module: ...`) are not user frames. */
#ifndef GOBLIN_OPS_FRAMES_H
#define GOBLIN_OPS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PY_FRAMES_MAX ((size_t)1 << 18)
/* Enclosing frames looked through per query: a real Python stack is far shallower; frames
 * that overlap without nesting (only a hostile file writes them) may chain longer. */
#define PY_FRAME_WALK_MAX 1024

typedef struct py_frame {
    int64_t start, end, pid, tid;
    uint32_t name;           /* the caller's string id */
} py_frame;

typedef struct py_frames {
    py_frame *v;
    size_t n, cap;
    uint64_t dropped;        /* frames beyond PY_FRAMES_MAX */
    uint32_t *parent;        /* when sorted: index + 1 of each frame's enclosing frame (0: none) */
    bool sorted;
    bool oom;                /* the enclosing-frame index could not be made: no frame is named
                              * (the caller reports it as out of memory) */
} py_frames;

/* Whether the python_function name (len bytes) is a user frame (see the top comment). */
bool ops_frame_is_user(const char *name, size_t len);
/* Keeps one frame. False: out of memory. */
bool ops_frames_add(py_frames *f, py_frame fr);
/* The name id of the innermost kept frame on (pid, tid) whose [start, end] holds t, or
 * UINT32_MAX when none (also when memory ran out for the enclosing-frame index: f->oom). Sorts the
 * frames on first use and links each to its enclosing frame, so a query walks the stack's
 * depth, not every earlier sibling (at most PY_FRAME_WALK_MAX frames). */
uint32_t ops_frames_innermost(py_frames *f, int64_t pid, int64_t tid, int64_t t);
/* Frees the kept frames; f is then empty. */
void ops_frames_free(py_frames *f);

#endif
