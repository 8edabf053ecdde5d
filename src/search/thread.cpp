#include "khun/search/thread.h"

#include <cassert>

namespace khun::search {

JobThread::JobThread() : thread([this] { loop(); }) {}

JobThread::~JobThread() {
    {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [this] { return !busy; });
        quit = true;
    }
    cv.notify_all();
    thread.join();
}

void JobThread::run(std::function<void()> j) {
    assert(j); // an empty job would throw on this thread, where no one catches it
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return !busy; });
    job = std::move(j);
    busy = true;
    lock.unlock();
    cv.notify_all();
}

void JobThread::wait() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return !busy; });
}

void JobThread::loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
        cv.wait(lock, [this] { return busy || quit; });
        if (quit && !busy) return;
        std::function<void()> j = std::move(job);
        lock.unlock();
        j();
        lock.lock();
        busy = false;
        cv.notify_all();
    }
}

void ThreadPool::resize(size_t n) {
    while (threads.size() > n) threads.pop_back();
    while (threads.size() < n) threads.push_back(std::make_unique<JobThread>());
}

void ThreadPool::for_each(const std::function<void(size_t)>& f) {
    for (size_t i = 0; i < threads.size(); ++i) run(i, [&f, i] { f(i); });
    wait_all();
}

} // namespace khun::search
